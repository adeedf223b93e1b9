/**
 * The code viewer's HTML preview: the user's HTML in `<iframe sandbox="allow-scripts">` loading the preview shell
 * (/preview/html, served with policies of its own: src/server/preview/route.ts). The frame is an opaque origin
 * that can reach no one: not the app's window, cookies, IndexedDB or /api, and no server at all (WebRTC
 * included). The HTML goes in by postMessage once the shell says it is ready; the shell says whether the page's
 * scripts will run (only where the browser confines the frame's connections), and nothing else comes back.
 * docs/code-viewer.md.
 */
import { useEffect, useRef, useState } from 'react';
import { isPreviewReady, PREVIEW_PATH, PREVIEW_RENDER, PREVIEW_SCRIPTS_OFF } from '../../protocol/preview';

export function HtmlPreview({ html }: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [scripts, setScripts] = useState<boolean | null>(null);
  useEffect(() => {
    let sent = false;
    const onMessage = (event: MessageEvent<unknown>) => {
      const target = frame.current?.contentWindow;
      if (sent || !target || event.source !== target || !isPreviewReady(event.data)) return;
      sent = true;
      setScripts(event.data.scripts);
      // The frame's origin is opaque ('null'): '*' is the only target origin that reaches it. It gets nothing
      // but the HTML the user is looking at.
      target.postMessage({ type: PREVIEW_RENDER, html }, '*');
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [html]);
  return (
    <>
      {scripts === false && <p className="html-preview-note muted">{PREVIEW_SCRIPTS_OFF}</p>}
      <iframe ref={frame} className="html-preview" title="HTML preview" sandbox="allow-scripts" src={PREVIEW_PATH} referrerPolicy="no-referrer" />
    </>
  );
}
