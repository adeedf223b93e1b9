/**
 * The HTML preview's contract between the code viewer (src/ui/components/HtmlPreview.tsx, in the app) and the
 * shell the gateway serves into its sandboxed frame (src/server/preview/route.ts). docs/code-viewer.md.
 */

/** The shell, framed by the viewer as `<iframe sandbox="allow-scripts">`. */
export const PREVIEW_PATH = '/preview/html';
/** A 1x1 image the shell loads to learn whether the browser confines the frame's connections. */
export const PREVIEW_PROBE_PATH = '/preview/probe.gif';

/** Shell -> viewer, once: ready for the HTML; `scripts` says whether the page's scripts will run. */
export const PREVIEW_READY = 'parley-preview-ready';
/** Viewer -> shell, once: the HTML to show. */
export const PREVIEW_RENDER = 'parley-preview-render';

/** Shown above the preview when the page's scripts are off (the shell said `scripts: false`). */
export const PREVIEW_SCRIPTS_OFF =
  "Scripts are off in this preview: this browser cannot stop a page's scripts from sending data out. Chromium 152 or later runs them.";

export interface PreviewReadyMessage {
  type: typeof PREVIEW_READY;
  scripts: boolean;
}

export function isPreviewReady(data: unknown): data is PreviewReadyMessage {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as { type?: unknown; scripts?: unknown };
  return d.type === PREVIEW_READY && typeof d.scripts === 'boolean';
}
