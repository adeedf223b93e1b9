/**
 * The updates feed (spec 001 sections 2-4): our own entries, newest first, each read one at a time ("Mark as read")
 * or all at once ("Mark all as read"); read status is engine data, so every tab's "Updates" link count follows.
 */
import { lazy, Suspense, useEffect, type MouseEvent } from 'react';
import type { ActionResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { navigate } from '../router';
import { report } from './folder-state';

// The markdown renderer is a lazy chunk (it carries GFM, math and KaTeX).
const Markdown = lazy(() => import('../components/Markdown'));

const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });


/**
 * An entry's links to the app's own routes (`/gallery`, `/media?mode=image`, ...) open in this tab through the
 * History API, as the app's other links do; links elsewhere keep the Markdown's new-tab behaviour.
 */
export function followAppLink(e: MouseEvent<HTMLElement>): void {
  if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  const a = (e.target as Element).closest('a');
  const href = a?.getAttribute('href') ?? '';
  if (!href.startsWith('/') || href.startsWith('//')) return;
  e.preventDefault();
  navigate(href);
}

export function UpdatesPage() {
  const updates = useQuery({ kind: 'updates' });
  useEffect(() => {
    document.title = 'Updates · Parley';
  }, []);
  const markRead = async (ids: string[]) => report(await engine<ActionResult>((api) => api.markUpdatesRead(ids)));
  const markAll = async () => report(await engine<ActionResult>((api) => api.markAllUpdatesRead()));

  return (
    <div className="updates-page">
      <div className="updates-head">
        <h1>Updates</h1>
        <p className="muted" aria-live="polite">
          {updates === undefined ? 'Loading…' : updates.unread === 0 ? 'All read' : `${updates.unread} unread`}
        </p>
        <button type="button" disabled={!updates || updates.unread === 0} onClick={() => void markAll()}>
          Mark all as read
        </button>
      </div>
      <ol className="updates-list">
        {updates?.items.map((item) => (
          <li key={item.id}>
            <article className="update-item" data-read={item.read} aria-labelledby={`update-${item.id}`}>
              <header>
                <h2 id={`update-${item.id}`}>
                  {!item.read && <span className="unread-dot" title="Unread" aria-hidden="true" />}
                  {item.title}
                </h2>
                <time dateTime={item.date}>{DATE.format(new Date(`${item.date}T00:00:00Z`))}</time>
                {!item.read && <span className="visually-hidden">Unread</span>}
              </header>
              <Suspense fallback={<p>{item.text}</p>}>
                {/* Enter on a focused link fires its click, which bubbles here: keyboard users follow links alike. */}
                <div className="update-text" onClick={followAppLink}>
                  <Markdown text={item.text} />
                </div>
              </Suspense>
              {!item.read && (
                <button type="button" className="mark-read" aria-label={`Mark “${item.title}” as read`} onClick={() => void markRead([item.id])}>
                  Mark as read
                </button>
              )}
            </article>
          </li>
        ))}
      </ol>
    </div>
  );
}
