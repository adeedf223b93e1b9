/**
 * The conversation list (navigation "Conversations"): pinned conversations first, each with its actions menu;
 * the search box above it; the balance and the log export/import below.
 */
import { useRef, useState } from 'react';
import { engine, useQuery } from '../engine';
import { type Route } from '../router';
import { Balance } from './Balance';
import { showLocalNotice } from '../state';
import { ConversationItem, LinkTo } from './ConversationItem';
import { SidebarSearch } from './SidebarSearch';

export function Sidebar({ route }: { route: Route }) {
  const activeSlug = route.name === 'conversation' ? route.slug : null;
  const conversations = useQuery({ kind: 'conversations' });
  const fileInput = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [query, setQuery] = useState('');
  const searching = query.trim().length >= 2;

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
      <div className="brand">Parley</div>
      <LinkTo href="/conversation/new" className="new-chat" current={activeSlug === 'new'}>
        + New chat
      </LinkTo>
      <SidebarSearch query={query} onQuery={setQuery} activeSlug={activeSlug} />
      <nav aria-label="Conversations" className="conversation-list" hidden={searching}>
        {conversations === undefined && <p className="muted">Loading…</p>}
        {conversations?.length === 0 && <p className="muted">No conversations yet.</p>}
        <ul>
          {conversations?.map((c) => (
            <ConversationItem key={c.id} conversation={c} current={c.slug === activeSlug} />
          ))}
        </ul>
      </nav>
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
