import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connection } from './engine';
import './styles.css';
import { registerServiceWorker } from './account/pwa';
import { preloadAfterFirstPaint } from './components/lazy-chunks';

connection.start();
registerServiceWorker();
const root = document.getElementById('root');
if (root) createRoot(root).render(<StrictMode><App /></StrictMode>);
preloadAfterFirstPaint();
