/**
 * The conversation list (navigation "Conversations"): pinned conversations first, each with its actions menu;
 * the search box above it; the balance and the log export/import below.
 */
import { useRef, useState } from 'react';
import { engine, useQuery } from '../engine';
import { type Route } from '../router';
import { Balance } from './Balance';
import { showLocalNotice } from '../state';
import { ConversationItem } from './ConversationItem';
import { Link } from './Link';
import { SidebarSearch } from './SidebarSearch';
import { useSnapshot } from 'valtio';
import { Folders } from '../account/Folders';
import { MoveToFolderDialog } from '../account/MoveToFolder';
import { filterByFolder, folderView } from '../account/folder-state';
import { SelectionBar, SidebarHeader, useLastSearchTerm } from '../account/SidebarParts';

export function Sidebar({ route }: { route: Route }) {
  const activeSlug = route.name === 'conversation' ? route.slug : null;
  const conversations = useQuery({ kind: 'conversations' });
  const fileInput = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [query, setQuery] = useState('');
  const searching = query.trim().length >= 2;
  useLastSearchTerm(query, setQuery);
  const preferences = useQuery({ kind: 'preferences' });
  const folders = useQuery({ kind: 'folders' });
  const { active } = useSnapshot(folderView);
  const listVisible = preferences?.conversationsSidebarVisible ?? true;
  const shown = conversations === undefined ? undefined : filterByFolder(conversations, folders, active);

  async function exportLog() {
    const text = await engine((api) => api.exportLog());
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `parley-log-${new Date().toISOString().slice(0, 10)}.ndjson`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function importLog(file: File) {
    setBusy(true);
    try {
      const { imported, skipped } = await engine(async (api) => api.importLog(await file.text()));
      showLocalNotice({ title: 'Log imported', text: `${imported} events added, ${skipped} already present.`, tone: 'green', durationMs: 5000 });
    } catch (error) {
      showLocalNotice({ title: 'Import failed', text: error instanceof Error ? error.message : String(error), tone: 'red', durationMs: 15000 });
    } finally {
      setBusy(false);
    }
  }

  return (
    <aside className="sidebar">
      <SidebarHeader listVisible={listVisible} />
      <Link href="/conversation/new" className="new-chat" current={activeSlug === 'new'}>
        + New chat
      </Link>
      {listVisible && (
        <>
          <SidebarSearch query={query} onQuery={setQuery} activeSlug={activeSlug} />
          <div className="sidebar-scroll" hidden={searching}>
            <Folders />
            <SelectionBar visibleIds={shown?.map((c) => c.id) ?? []} />
            <nav aria-label="Conversations" className="conversation-list">
              {conversations === undefined && <p className="muted">Loading…</p>}
              {conversations?.length === 0 && <p className="muted">No conversations yet.</p>}
              {conversations !== undefined && conversations.length > 0 && shown?.length === 0 && <p className="muted">No conversations in this folder.</p>}
              <ul>
                {shown?.map((c) => (
                  <ConversationItem key={c.id} conversation={c} current={c.slug === activeSlug} />
                ))}
              </ul>
            </nav>
          </div>
        </>
      )}
      <MoveToFolderDialog />
      <div className="sidebar-footer">
        <Balance />
        <div className="log-actions">
          <button type="button" onClick={() => void exportLog()}>
            Export log
          </button>
          <button type="button" disabled={busy} onClick={() => fileInput.current?.click()}>
            Import log
          </button>
          <input
            ref={fileInput}
            type="file"
            accept=".ndjson,application/x-ndjson,application/json,text/plain"
            aria-label="Import log file"
            hidden
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (file) void importLog(file);
            }}
          />
        </div>
      </div>
    </aside>
  );
}
