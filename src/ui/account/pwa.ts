/**
 * The service worker (public/sw.js is generated at build time by scripts/vite-sw.ts): registered from the app's own
 * origin once the page has loaded, so that the app shell opens without a network next time. Not in the dev server,
 * whose modules are not the build's.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => console.warn('Service worker not registered', error));
  };
  if (document.readyState === 'complete') register();
  else addEventListener('load', register, { once: true });
}
