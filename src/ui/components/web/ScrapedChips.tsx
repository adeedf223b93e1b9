/**
 * Scraped pages as chips (spec 000 section 3, scrapedContent): each opens a dialog with the page's readable text
 * (shown as text, never as markup) and a link to the page; in the composer each can be removed.
 */
import { useRef, useState } from 'react';
import { safeHref } from './safe-href';

export interface PageChip {
  url: string;
  title: string;
  content: string;
}

export { safeHref };

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

export function ScrapedChips({ pages, onRemove, label }: { pages: readonly PageChip[]; onRemove?: (url: string) => void; label: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState<PageChip | null>(null);
  if (pages.length === 0) return null;
  const href = open ? safeHref(open.url) : undefined;
  return (
    <>
      <ul className="scraped-chips" aria-label={label}>
        {pages.map((p) => (
          <li key={p.url} className="scraped-chip">
            <button
              type="button"
              className="chip-open"
              title={p.url}
              onClick={() => {
                setOpen(p);
                dialog.current?.showModal();
              }}
            >
              <span className="chip-title">{p.title}</span>
              <span className="chip-host">{hostOf(p.url)}</span>
            </button>
            {onRemove && (
              <button type="button" className="icon" aria-label={`Remove ${p.title}`} onClick={() => onRemove(p.url)}>
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      <dialog ref={dialog} className="scraped-dialog" aria-label="Scraped page" onClose={() => setOpen(null)}>
        {open && (
          <>
            <h2>{open.title}</h2>
            <p className="scraped-url">
              {href ? (
                <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                  {open.url}
                </a>
              ) : (
                open.url
              )}
            </p>
            <div className="scraped-text">{open.content}</div>
            <form method="dialog" className="dialog-actions">
              <button type="submit">Close</button>
            </form>
          </>
        )}
      </dialog>
    </>
  );
}
