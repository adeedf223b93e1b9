import { StrictMode, Suspense, lazy } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { connection } from './engine';
import { shareRouteId } from './router';
// The UI font, served from the app (issue 16: no font from another host); each script's file loads only when used.
import '@fontsource-variable/inter';
import './styles.css';
import { registerServiceWorker } from './account/pwa';
import { preloadAfterFirstPaint } from './components/lazy-chunks';

// A shared conversation (/share/{id}) is a page of its own: it starts no engine and creates no session.
const SharePage = lazy(() => import('./share/SharePage'));
const shareId = shareRouteId(location.pathname);

if (shareId === null) connection.start();
registerServiceWorker();
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      {shareId === null ? (
        <App />
      ) : (
        <Suspense fallback={<p className="muted">Loading…</p>}>
          <SharePage id={shareId} />
        </Suspense>
      )}
    </StrictMode>,
  );
}
if (shareId === null) preloadAfterFirstPaint();
