/**
 * The lazy chunks the first page needs soon after it paints: the message list (rows, actions, the virtualiser)
 * and the Markdown renderer (unified, GFM, math, KaTeX). Their loaders are shared by the components that render
 * them and by `preloadAfterFirstPaint`, so a conversation's rows and a reply's formatting are usually there by the
 * time the engine has read the messages: a reply shows as plain text only until the renderer arrives. The notices'
 * bodies come with them, so a notice raised on load shows at once.
 */
export const loadMessageList = () => import('./MessageList');
export const loadMarkdown = () => import('./Markdown');
/** The notices' bodies and actions (./NoticeBodies.tsx): the stack itself is on the first page. */
export const loadNoticeBodies = () => import('./NoticeBodies');

/** Starts loading the first page's lazy chunks once it has painted (two frames later), without waiting on them. */
export function preloadAfterFirstPaint(): void {
  const start = (): void => {
    void loadMessageList().catch(() => undefined);
    void loadMarkdown().catch(() => undefined);
    void loadNoticeBodies().catch(() => undefined);
  };
  if (typeof requestAnimationFrame !== 'function') return start();
  requestAnimationFrame(() => setTimeout(start, 0));
}

