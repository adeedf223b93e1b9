/**
 * A shared conversation (route /share/{id}; issue 20, spec 001 section 2): read-only, rendered with the app's own
 * message list from the shared repro log (GET /share/{id}/log), folded here with src/inspect. The page starts no
 * engine and touches none of the reader's data: a reader without Parley gets no session. The log is the sharer's
 * data and is shown as data: model text goes through the app's Markdown pipeline (no raw HTML, unsafe links
 * dropped) under the app's strict policy (no script but the app's own). Its own lazy chunk, loaded only here.
 */
import { useEffect, useState } from 'react';
import { decodeLog, LogFormatError } from '../../events/codec';
import type { MessageRow } from '../../events/model';
import { conversationState, foldState } from '../../inspect';
import { SHARE_ID_PATTERN, SHARE_MISSING_TEXT, shareLogPath } from '../../protocol/share';
import { useTheme } from '../theme';
import { ReadOnlyConversation } from '../components/ReadOnlyConversation';
import './share.css';

type Loaded = { state: 'loading' } | { state: 'missing' } | { state: 'failed'; reason: string } | { state: 'ready'; name: string; rows: MessageRow[] };

/** The one conversation of a shared log: its name and messages (a share carries only that conversation's events). */
export function sharedConversation(text: string): { name: string; rows: MessageRow[] } {
  const state = foldState(decodeLog(text).events);
  const conversations = state.tables.rows('conversations');
  const slug = conversations[0]?.slug ?? [...state.tables.map('messages').values()][0]?.conversationSlug;
  if (slug === undefined) return { name: 'Shared conversation', rows: [] };
  const c = conversationState(state, slug);
  return { name: c.conversation?.name || 'Shared conversation', rows: c.messages };
}

export default function SharePage({ id }: { id: string }) {
  useTheme('system');
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      if (!SHARE_ID_PATTERN.test(id)) return setLoaded({ state: 'missing' });
      try {
        const res = await fetch(shareLogPath(id), { signal: stop.signal, headers: { accept: 'application/x-ndjson' } });
        if (res.status === 404) return setLoaded({ state: 'missing' });
        if (!res.ok) return setLoaded({ state: 'failed', reason: `The server answered ${res.status}.` });
        const shared = sharedConversation(await res.text());
        document.title = `${shared.name} · Shared from Parley`;
        setLoaded({ state: 'ready', ...shared });
      } catch (e) {
        if (stop.signal.aborted) return;
        setLoaded({ state: 'failed', reason: e instanceof LogFormatError ? `The shared copy is damaged (${e.message}).` : 'It could not be loaded. Check your connection and reload.' });
      }
    })();
    return () => stop.abort();
  }, [id]);

  return (
    <div className="share-page">
      <header className="share-header">
        <div className="share-heading">
          <h1>{loaded.state === 'ready' ? loaded.name : 'Shared conversation'}</h1>
          <p className="muted">A read-only copy shared from Parley.</p>
        </div>
        <a className="share-open" href="/">
          Open Parley
        </a>
      </header>
      {loaded.state === 'loading' && (
        <p className="share-status muted" role="status">
          Loading the conversation…
        </p>
      )}
      {loaded.state === 'missing' && (
        <p className="share-status" role="alert">
          {SHARE_MISSING_TEXT}
        </p>
      )}
      {loaded.state === 'failed' && (
        <p className="share-status" role="alert">
          This shared conversation could not be shown. {loaded.reason}
        </p>
      )}
      {loaded.state === 'ready' && (
        <main className="share-conversation" aria-label="Shared conversation">
          <ReadOnlyConversation rows={loaded.rows} models={[]} empty={<p className="muted share-status">This conversation has no messages.</p>} />
        </main>
      )}
    </div>
  );
}
