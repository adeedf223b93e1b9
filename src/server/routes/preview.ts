/**
 * The code viewer's HTML preview page (issue 8 item 5): an empty shell the viewer loads in an
 * `<iframe sandbox="allow-scripts">` and feeds the user's HTML by postMessage. Served here, with a policy of its
 * own, so that the app's policy stays strict (script-src 'self', no inline script) while the preview runs inline
 * scripts: an iframe's srcdoc would inherit the app's policy.
 *
 * Its Content-Security-Policy makes it safe even if opened on its own:
 * - `sandbox allow-scripts`: an opaque origin, always (not the app's): no cookies, no IndexedDB or storage of the
 *   app, no same-origin access to the app's window; no forms, popups, modals or top navigation;
 * - `default-src 'none'` with inline script and style only, images, fonts and media from data: and blob: only:
 *   no request leaves the preview (no /api call, no beacon, no remote image, no exfiltration);
 * - `frame-ancestors 'self'`: only the app may frame it.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../context';

export const PREVIEW_PATH = '/preview/html';

export const PREVIEW_CSP = [
  'sandbox allow-scripts',
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  'media-src data: blob:',
  "connect-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** Message types between the viewer (the app's page) and the preview shell. */
export const PREVIEW_READY = 'parley-preview-ready';
export const PREVIEW_RENDER = 'parley-preview-render';

/**
 * The shell: it tells its parent it is ready, takes one render message from the parent only, and replaces itself
 * with the HTML (document.write, so the HTML's own scripts run, in this sandbox).
 */
export const PREVIEW_SHELL = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Preview</title></head><body><script>
(function () {
  var done = false;
  addEventListener('message', function (e) {
    var d = e.data;
    if (done || e.source !== parent || !d || d.type !== '${PREVIEW_RENDER}' || typeof d.html !== 'string') return;
    done = true;
    document.open();
    document.write(d.html);
    document.close();
  });
  parent.postMessage({ type: '${PREVIEW_READY}' }, '*');
})();
</script></body></html>
`;

export function registerPreviewRoute(app: Hono<AppEnv>): void {
  app.get(PREVIEW_PATH, (c) =>
    c.body(PREVIEW_SHELL, 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': PREVIEW_CSP,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Resource-Policy': 'same-origin',
    }),
  );
}
