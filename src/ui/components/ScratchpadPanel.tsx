/**
 * The scratchpad (DESIGN UI contract: button "Scratchpad" opening region "Scratchpad"; issue 8 item 6): the
 * conversation's entries, newest first, each editable and deletable; a note can be typed here, and messages and
 * code output are added from their own actions ("Add to scratchpad"). Entries are engine data (the log), so they
 * survive a reload and show in every tab.
 */
import { useState } from 'react';
import type { ScratchpadEntryRow } from '../../events/model';
import type { ActionResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { showLocalNotice } from '../state';
import { addToScratchpad, tools } from '../tools-state';

const TYPE_LABEL: Record<string, string> = { note: 'Note', message: 'Message', code: 'Code', output: 'Output' };

function when(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

async function act(fn: () => Promise<ActionResult>): Promise<boolean> {
  const result = await fn();
  if (!result.ok) showLocalNotice({ title: result.error, text: '', tone: 'orange', durationMs: 5000 });
  return result.ok;
}

function Entry({ entry }: { entry: ScratchpadEntryRow }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const mono = entry.type === 'code' || entry.type === 'output';
  const label = TYPE_LABEL[entry.type] ?? entry.type;
  return (
    <li className={`scratchpad-entry scratchpad-${entry.type}`} aria-label={`${label}, ${when(entry.timestamp)}`}>
      <div className="scratchpad-entry-head">
        <span className="scratchpad-type">{label}</span>
        <time dateTime={new Date(entry.timestamp).toISOString()}>{when(entry.timestamp)}</time>
      </div>
      {editing === null ? (
        mono ? <pre className="scratchpad-content">{entry.content}</pre> : <p className="scratchpad-content">{entry.content}</p>
      ) : (
        <textarea aria-label="Edit entry" value={editing} autoFocus onChange={(e) => setEditing(e.target.value)} rows={Math.min(14, Math.max(3, editing.split('\n').length + 1))} />
      )}
      <div className="scratchpad-entry-actions">
        {editing === null ? (
          <>
            <button type="button" onClick={() => setEditing(entry.content)}>
              Edit
            </button>
            <button
              type="button"
              onClick={() =>
                void navigator.clipboard.writeText(entry.content).then(() => {
                  setCopied(true);
                  setTimeout(() => setCopied(false), 1500);
                })
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" className="danger" onClick={() => void act(() => engine<ActionResult>((api) => api.deleteScratchpadEntry(entry.id)))}>
              Delete
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button
              type="button"
              className="primary"
              disabled={editing.trim() === ''}
              onClick={() => void act(() => engine<ActionResult>((api) => api.editScratchpadEntry(entry.id, editing))).then((ok) => ok && setEditing(null))}
            >
              Save
            </button>
          </>
        )}
      </div>
    </li>
  );
}

export default function ScratchpadPanel({ slug }: { slug: string | null }) {
  const entries = useQuery({ kind: 'scratchpad', slug: slug ?? '' });
  const [note, setNote] = useState('');
  return (
    <section className="tool-panel scratchpad" role="region" aria-label="Scratchpad">
      <header className="tool-panel-header">
        <h2>Scratchpad</h2>
        <button type="button" className="tool-close" onClick={() => (tools.panel = null)}>
          Close
        </button>
      </header>
      {slug === null ? (
        <p className="muted scratchpad-empty">The scratchpad keeps notes for a conversation: send a message first, then add notes, messages and code output here.</p>
      ) : (
        <>
          <form
            className="scratchpad-new"
            onSubmit={(e) => {
              e.preventDefault();
              void addToScratchpad(slug, note, 'note', true).then((ok) => ok && setNote(''));
            }}
          >
            <textarea aria-label="New note" placeholder="Write a note…" value={note} onChange={(e) => setNote(e.target.value)} rows={3} />
            <button type="submit" className="primary" disabled={note.trim() === ''}>
              Add note
            </button>
          </form>
          {entries !== undefined && entries.length === 0 && (
            <p className="muted scratchpad-empty">Nothing here yet. Add a note, or use “Add to scratchpad” on a message or on a code run’s output.</p>
          )}
          <ul className="scratchpad-list" aria-label="Scratchpad entries">
            {entries?.map((entry) => <Entry key={entry.id} entry={entry} />)}
          </ul>
        </>
      )}
    </section>
  );
}
