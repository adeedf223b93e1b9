import { useEffect } from 'react';
import { Sidebar } from './components/Sidebar';
import { ConversationPage } from './components/ConversationPage';
import { Notifications } from './components/Notifications';
import { WalletPage } from './components/WalletPage';
import { matchRoute, navigate, usePath } from './router';

export function App() {
  const path = usePath();
  const route = matchRoute(path);
  useEffect(() => {
    if (route.name === 'home') navigate('/conversation/new', { replace: true });
  }, [route.name]);
  return (
    <div className="app">
      <Sidebar route={route} />
      <main className="main">
        {route.name === 'conversation' && <ConversationPage key={route.slug === 'new' ? 'new' : 'conversation'} slug={route.slug} />}
        {route.name === 'wallet' && <WalletPage />}
      </main>
      <Notifications />
    </div>
  );
}
