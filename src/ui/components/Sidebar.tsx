import { useRef, useState } from 'react';
import { engine, useQuery } from '../engine';
import { navigate, type Route } from '../router';
import { Balance } from './Balance';
import { showLocalNotice } from '../state';

function LinkTo({ href, className, children, current }: { href: string; className?: string; children: React.ReactNode; current?: boolean }) {
  return (
    <a
      href={href}
      className={className}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

export function Sidebar({ route }: { route: Route }) {
  const activeSlug = route.name === 'conversation' ? route.slug : null;
  const conversations = useQuery({ kind: 'conversations' });
  const fileInput = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);

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
      <nav aria-label="Conversations" className="conversation-list">
        {conversations === undefined && <p className="muted">Loading…</p>}
        {conversations?.length === 0 && <p className="muted">No conversations yet.</p>}
        <ul>
          {conversations?.map((c) => (
            <li key={c.id}>
              <LinkTo href={`/conversation/${c.slug}`} current={c.slug === activeSlug} className="conversation-link">
                <span className="conversation-name">{c.name || 'Untitled'}</span>
              </LinkTo>
            </li>
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
        <LinkTo href="/wallet" className="wallet-link" current={route.name === 'wallet'}>
          Wallet
        </LinkTo>
      </div>
    </aside>
  );
}
