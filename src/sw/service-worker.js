/* global VERSION, SHELL_FILES */
/**
 * Parley's service worker (built into sw.js with VERSION and SHELL_FILES by scripts/vite-sw.ts).
 *  - install: the app shell (SHELL_FILES) into a cache named by the build's version;
 *  - activate: older shells are deleted, open pages are taken over;
 *  - a page load (navigation) goes to the network first, so a new build is seen at once; offline, or when the
 *    gateway cannot answer, the cached index.html is the page (the engine and the log work without a network);
 *  - /assets/ files (content-hashed, never changed) come from the cache, else the network, and are kept;
 *  - everything else (the gateway's calls, /preview, other origins) is not touched.
 */
const SHELL = `parley-shell-${VERSION}`;
const ASSETS = 'parley-assets';

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => cache.addAll(SHELL_FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('parley-shell-') && k !== SHELL).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

async function page(request) {
  try {
    const response = await fetch(request);
    if (response.ok && (response.headers.get('content-type') || '').startsWith('text/html')) {
      const copy = response.clone();
      caches.open(SHELL).then((cache) => cache.put('/index.html', copy));
    }
    if (response.status < 500) return response;
    const cached = await caches.match('/index.html');
    return cached || response;
  } catch (error) {
    const cached = await caches.match('/index.html');
    if (cached) return cached;
    throw error;
  }
}

async function asset(request) {
  const cached = await caches.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.status === 200) {
    const copy = response.clone();
    caches.open(ASSETS).then((cache) => cache.put(request, copy));
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // The app's own pages only: the gateway's pages (the test checkout, /preview) are never the app shell.
    if (/^\/(api|auth|admin|preview|pay|checkout|transaction|invitations|nano)(\/|$)/.test(url.pathname)) return;
    // A shared conversation is online only: its page's status (404 once deleted) and its log come from the gateway.
    if (url.pathname.startsWith('/share/')) return;
    event.respondWith(page(request));
    return;
  }
  if (url.pathname.startsWith('/assets/') || SHELL_FILES.includes(url.pathname)) event.respondWith(asset(request));
});
