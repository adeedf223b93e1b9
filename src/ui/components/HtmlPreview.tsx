/**
 * The code viewer's HTML preview: the user's HTML in `<iframe sandbox="allow-scripts">` loading the preview shell
 * (/preview/html, served with a sandboxing policy of its own: src/server/routes/preview.ts). The frame is an
 * opaque origin: its scripts run, but cannot reach the app's window, cookies, IndexedDB or /api, and no request
 * leaves it. The HTML goes in by postMessage once the shell says it is ready; nothing comes back but that.
 */
import { useEffect, useRef } from 'react';

/** Kept in step with src/server/routes/preview.ts (the server's module is not bundled into the page). */
const PREVIEW_PATH = '/preview/html';
const PREVIEW_READY = 'parley-preview-ready';
const PREVIEW_RENDER = 'parley-preview-render';

export function HtmlPreview({ html }: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    let sent = false;
    const onMessage = (event: MessageEvent<unknown>) => {
      const target = frame.current?.contentWindow;
      if (sent || !target || event.source !== target) return;
      const data = event.data as { type?: unknown } | null;
      if (typeof data !== 'object' || data === null || data.type !== PREVIEW_READY) return;
      sent = true;
      // The frame's origin is opaque ('null'): '*' is the only target origin that reaches it. It gets nothing
      // but the HTML the user is looking at.
      target.postMessage({ type: PREVIEW_RENDER, html }, '*');
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [html]);
  return <iframe ref={frame} className="html-preview" title="HTML preview" sandbox="allow-scripts" src={PREVIEW_PATH} referrerPolicy="no-referrer" />;
}
