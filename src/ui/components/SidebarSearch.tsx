/**
 * The sidebar's search: a searchbox "Search conversations" (Ctrl/Cmd+K focuses it from anywhere) whose results
 * come from the engine's full-text index as you type. Each keystroke asks the engine; an answer to an older
 * query than the one shown is dropped.
 */
import { useEffect, useRef, useState } from 'react';
import type { SearchHit } from '../../protocol/engine';
import { engine } from '../engine';
import { navigate } from '../router';
import { view } from '../state';
import { Link } from './Link';

/** Shortest query the engine searches (src/worker/rooms/conversations/search.ts MIN_QUERY_CHARS). */
const MIN_QUERY_CHARS = 2;

export function useSearchShortcut(input: React.RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        const el = input.current;
        if (!el) return;
        const focus = () => {
          el.focus();
          el.select();
        };
        if (getComputedStyle(el).visibility !== 'hidden') return focus();
        // On a phone the list is in the closed drawer: open it, then focus once it shows (after the drawer's own focus).
        view.drawerOpen = true;
        requestAnimationFrame(() => requestAnimationFrame(focus));
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [input]);
}

export function SidebarSearch({ query, onQuery, activeSlug }: { query: string; onQuery(q: string): void; activeSlug: string | null }) {
  const input = useRef<HTMLInputElement>(null);
  const [hits, setHits] = useState<{ query: string; hits: SearchHit[] } | null>(null);
  const latest = useRef(query);
  useSearchShortcut(input);

  useEffect(() => {
    latest.current = query;
    const q = query.trim();
    if (q.length < MIN_QUERY_CHARS) {
      setHits(null);
      return;
    }
    void engine((api) => api.searchConversations(q)).then((found) => {
      if (latest.current === query) setHits({ query, hits: found });
    });
  }, [query]);

  const searching = query.trim().length >= MIN_QUERY_CHARS;
  return (
    <>
      <div className="sidebar-search">
        <input
          ref={input}
          type="search"
          aria-label="Search conversations"
          placeholder="Search (Ctrl+K)"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && query !== '') {
              e.preventDefault();
              e.stopPropagation();
              onQuery('');
            } else if (e.key === 'Enter' && hits?.hits[0]) {
              e.preventDefault();
              navigate(`/conversation/${hits.hits[0].slug}`);
              onQuery('');
            }
          }}
        />
      </div>
      {searching && (
        <section className="search-results" aria-label="Search results">
          {hits === null && <p className="muted">Searching…</p>}
          {hits?.hits.length === 0 && <p className="muted">No conversations match “{hits.query.trim()}”.</p>}
          {hits && hits.hits.length > 0 && (
            <ul>
              {hits.hits.map((h) => (
                <li key={h.slug} onClick={() => onQuery('')}>
                  <Link href={`/conversation/${h.slug}`} current={h.slug === activeSlug} className="search-hit">
                    <span className="conversation-name">{h.name || 'Untitled'}</span>
                    {h.messageId !== null && <span className="search-snippet">{h.snippet}</span>}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}
