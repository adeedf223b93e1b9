/**
 * Pieces of the sidebar from the account side: its header buttons (hide the sidebar, hide the conversation list:
 * sidebarOpen and conversationsSidebarVisible), the bulk selection bar ("Select conversations", "Move selected",
 * "Delete selected": one notice with one Undo),
 * and the search term kept between visits (lastUsedSearchTerm).
 */
import { useEffect, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { ActionResult } from '../../protocol/engine';
import type { Preferences } from '../../protocol/preferences';
import { engine, useQuery } from '../engine';
import { endSelection, folderView } from './folder-state';
import { ConfirmDialog } from '../components/ConfirmDialog';

/** The question before a bulk delete (ours; Undo brings them back for as long as the notice stays). */
export const bulkDeleteTitle = (n: number): string => (n === 1 ? 'Delete 1 conversation?' : `Delete ${n} conversations?`);

export function savePreferences(changes: Partial<Preferences>): void {
  void engine((api) => api.setPreferences(changes));
}

/** Ours: the search term is saved this long after the last keystroke (one event per pause, not per key). */
export const SEARCH_TERM_SAVE_MS = 800;

/** Restores the last search term once the preferences arrive, and saves the term after each pause in typing. */
export function useLastSearchTerm(query: string, setQuery: (q: string) => void): void {
  const preferences = useQuery({ kind: 'preferences' });
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current || !preferences) return;
    restored.current = true;
    if (preferences.lastUsedSearchTerm !== '' && query === '') setQuery(preferences.lastUsedSearchTerm);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the preferences first arrive
  }, [preferences]);
  useEffect(() => {
    if (!restored.current || !preferences || query === preferences.lastUsedSearchTerm) return;
    const t = setTimeout(() => savePreferences({ lastUsedSearchTerm: query.slice(0, 200) }), SEARCH_TERM_SAVE_MS);
    return () => clearTimeout(t);
  }, [query, preferences]);
}

export function SidebarHeader({ listVisible }: { listVisible: boolean }) {
  const listLabel = listVisible ? 'Hide conversation list' : 'Show conversation list';
  return (
    <div className="sidebar-head">
      <div className="brand">Parley</div>
      <div className="sidebar-head-buttons">
        <button type="button" className="icon-button" aria-label={listLabel} title={listLabel} aria-pressed={!listVisible} onClick={() => savePreferences({ conversationsSidebarVisible: !listVisible })}>
          ☰
        </button>
        <button type="button" className="icon-button sidebar-hide" aria-label="Hide sidebar" title="Hide sidebar" onClick={() => savePreferences({ sidebarOpen: false })}>
          «
        </button>
      </div>
    </div>
  );
}

export function SelectionBar({ visibleIds, all }: { visibleIds: readonly number[]; all: readonly { id: number; slug: string }[] }) {
  const snap = useSnapshot(folderView);
  const [confirming, setConfirming] = useState(false);
  if (!snap.selecting) {
    return (
      <div className="selection-bar">
        <button type="button" onClick={() => (folderView.selecting = true)} disabled={visibleIds.length === 0}>
          Select conversations
        </button>
      </div>
    );
  }
  const allChosen = visibleIds.length > 0 && visibleIds.every((id) => snap.selected.includes(id));
  return (
    <div className="selection-bar selecting" role="group" aria-label="Selected conversations">
      <span className="muted">{snap.selected.length} selected</span>
      <button type="button" onClick={() => (folderView.selected = allChosen ? [] : [...visibleIds])}>
        {allChosen ? 'Select none' : 'Select all'}
      </button>
      <button type="button" disabled={snap.selected.length === 0} onClick={() => (folderView.moving = [...snap.selected])}>
        Move selected
      </button>
      <button type="button" disabled={snap.selected.length === 0} onClick={() => setConfirming(true)}>
        Delete selected
      </button>
      <ConfirmDialog
        open={confirming}
        title={bulkDeleteTitle(snap.selected.length)}
        confirmLabel="Delete"
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          const chosen = new Set(snap.selected);
          const slugs = all.filter((c) => chosen.has(c.id)).map((c) => c.slug);
          setConfirming(false);
          endSelection();
          void engine<ActionResult>((api) => api.deleteConversations(slugs));
        }}
      >
        <p>They can be brought back with Undo while its notice shows.</p>
      </ConfirmDialog>
      <button type="button" onClick={endSelection}>
        Done
      </button>
    </div>
  );
}
