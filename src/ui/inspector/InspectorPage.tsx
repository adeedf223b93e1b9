/**
 * The Inspector (issue 19): the event log, virtualised and filtered; the state after a chosen event and what it
 * changed; a scrubber showing one conversation as it was, read-only, with the app's own message list; an exported
 * log opened instead of the live one (only read: nothing is written to the database); a repro of one conversation
 * exported, optionally redacted. Loaded only when opened (App.tsx imports it lazily). The logic is src/inspect.
 */
import { memo, useDeferredValue, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { encodeLog } from '../../events/codec';
import { conversationState, diffStates, filterEvents, formatDiff, redactEvent, slugsOf, Timeline, trimLog } from '../../inspect';
import type { EventFilter } from '../../inspect';
import { engine, useQuery } from '../engine';
import { ReadOnlyConversation } from '../components/ReadOnlyConversation';
import { decodeInWorker, DecodeError } from './decode-client';
import type { LogEvent } from './decode-client';
import './inspector.css';

interface Loaded {
  source: 'live' | 'file';
  name: string;
  events: LogEvent[];
  exportedAt: number;
  types: string[];
  slugs: string[];
}

const ROW_PX = 30;
const time = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString().replace('T', ' ').slice(0, 23) : String(ms));
/** A datetime-local input's value as ms (local time), or undefined when empty. */
const localMs = (v: string) => (v === '' ? undefined : new Date(v).getTime());

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export default function InspectorPage() {
  const [log, setLog] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Inspector · Parley';
    void openLive();
  }, []);

  /** Decoded in a worker (./decode-worker.ts): the page only gathers the events as they arrive. */
  async function open(text: string | Blob, source: Loaded['source'], name: string) {
    try {
      const decoded = await decodeInWorker(text);
      setLog({ source, name, ...decoded });
      setError(null);
    } catch (e) {
      setError(e instanceof DecodeError ? `${name}: ${e.message}` : String(e));
    }
  }

  async function openLive() {
    setLoading(true);
    try {
      await open(await engine((api) => api.exportLog()), 'live', 'the live log');
    } finally {
      setLoading(false);
    }
  }

  async function openFile(file: File) {
    setLoading(true);
    try {
      await open(file, 'file', file.name);
    } finally {
      setLoading(false);
    }
  }

  return (
    <div className="inspector">
      <h1>Inspector</h1>
      <div className="inspector-source">
        <p role="status">
          {loading ? 'Reading the log…' : log ? `${log.events.length} events from ${log.source === 'live' ? 'the live log' : log.name} (read only)` : ''}
        </p>
        <button type="button" onClick={() => void openLive()}>
          {log?.source === 'file' ? 'Back to the live log' : 'Reload the live log'}
        </button>
        <button type="button" onClick={() => fileInput.current?.click()}>
          Open a log file…
        </button>
        <input
          ref={fileInput}
          type="file"
          hidden
          aria-label="Open a log file"
          accept=".ndjson,application/x-ndjson,application/json,text/plain"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void openFile(file);
          }}
        />
      </div>
      {error && (
        <p className="inspector-error" role="alert">
          {error}
        </p>
      )}
      {log && <LogView key={`${log.source}:${log.name}:${log.events.length}`} log={log} />}
    </div>
  );
}

function LogView({ log }: { log: Loaded }) {
  const { events } = log;
  const timeline = useMemo(() => new Timeline(events, 2000), [events]);
  const snapshots = useSnapshotBuilder(timeline);
  const { types, slugs } = log;
  const [type, setType] = useState('');
  const [conversation, setConversation] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const deferredText = useDeferredValue(text);
  const [selected, setSelected] = useState<number | null>(null);
  const ids = { type: useId(), conv: useId(), from: useId(), to: useId(), text: useId() };

  const positions = useMemo(() => {
    const filter: EventFilter = {};
    if (type !== '') filter.types = [type];
    if (conversation !== '') filter.conversation = conversation;
    const f = localMs(from);
    const t = localMs(to);
    if (f !== undefined) filter.from = f;
    if (t !== undefined) filter.to = t;
    if (deferredText !== '') filter.text = deferredText;
    return filterEvents(events, filter);
  }, [events, type, conversation, from, to, deferredText]);

  return (
    <>
      <fieldset className="inspector-filters">
        <legend>Filter</legend>
        <ChoiceFilter id={ids.type} label="Type" any="Any type" value={type} choices={types} onChange={setType} />
        <ChoiceFilter id={ids.conv} label="Conversation" any="Any conversation" value={conversation} choices={slugs} onChange={setConversation} />
        <label htmlFor={ids.from}>From</label>
        <input id={ids.from} type="datetime-local" step="1" value={from} onChange={(e) => setFrom(e.target.value)} />
        <label htmlFor={ids.to}>To</label>
        <input id={ids.to} type="datetime-local" step="1" value={to} onChange={(e) => setTo(e.target.value)} />
        <label htmlFor={ids.text}>Text</label>
        <input id={ids.text} type="search" value={text} placeholder="Find in events" onChange={(e) => setText(e.target.value)} />
      </fieldset>
      <p className="muted inspector-count">
        {positions.length === events.length ? `${events.length} events` : `${positions.length} of ${events.length} events match`}
      </p>
      <p className="muted inspector-snapshots">
        {snapshots.built === snapshots.total ? 'State snapshots ready' : `Building state snapshots… ${snapshots.built} of ${snapshots.total}`}
      </p>
      <div className="inspector-body">
        <EventList events={events} positions={positions} selected={selected} onSelect={setSelected} />
        <EventDetail timeline={timeline} position={selected} />
      </div>
      <Scrubber timeline={timeline} slugs={slugs} initial={conversation || (selected !== null ? (slugsOf(events[selected - 1] as LogEvent)[0] ?? '') : '')} at={selected} />
      <ExportRepro log={log} slugs={slugs} />
    </>
  );
}

/** Time one background step may take (well under the 50 ms of a long task). */
const STEP_MS = 12;

/**
 * Builds the timeline's snapshots in small steps between frames after a log opens, so that no lookup later has to
 * fold the log from its start (which froze the page for seconds on a 100,000-event log). Returns the progress.
 */
function useSnapshotBuilder(timeline: Timeline): { built: number; total: number } {
  const [built, setBuilt] = useState(timeline.snapshotCount);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const step = () => {
      const t0 = performance.now();
      let more = timeline.buildNextSnapshot();
      while (more && performance.now() - t0 < STEP_MS) more = timeline.buildNextSnapshot();
      setBuilt(timeline.snapshotCount);
      if (more) timer = setTimeout(step, 0);
    };
    timer = setTimeout(step, 0);
    return () => clearTimeout(timer);
  }, [timeline]);
  return { built, total: timeline.snapshotTotal };
}

/** Rows rendered above and below the visible ones. */
const OVERSCAN = 10;

/**
 * The virtualised list of the matching events. Its own component (memo): a scroll re-renders these rows alone, not
 * the page around them (its selects hold a choice per conversation, hundreds on a large log). Rows have one fixed
 * height, so the visible ones follow from the scroll position alone: a general virtualiser measured every one of
 * 100,000 rows when the list mounted (a task of 0.2-0.4 s).
 */
const EventList = memo(function EventList({ events, positions, selected, onSelect }: { events: readonly LogEvent[]; positions: readonly number[]; selected: number | null; onSelect(n: number): void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 0 });
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const update = () => setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }));
    update();
    el.addEventListener('scroll', update, { passive: true });
    const resize = new ResizeObserver(update);
    resize.observe(el);
    return () => {
      el.removeEventListener('scroll', update);
      resize.disconnect();
    };
  }, []);
  const first = Math.max(0, Math.floor(view.top / ROW_PX) - OVERSCAN);
  const last = Math.min(positions.length, Math.ceil((view.top + view.height) / ROW_PX) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i++) {
    const n = positions[i] as number;
    const e = events[n - 1] as LogEvent;
    rows.push(
      <div
        key={i}
        role="option"
        aria-selected={selected === n}
        className="inspector-row"
        style={{ transform: `translateY(${i * ROW_PX}px)`, height: ROW_PX }}
        onClick={() => onSelect(n)}
      >
        <span className="inspector-pos">{n}</span>
        <span className="inspector-time">{time(e.at)}</span>
        <span className="inspector-type">{e.type}</span>
        <span className="inspector-slug">{slugsOf(e).join(', ') || '-'}</span>
      </div>,
    );
  }
  return (
    <div ref={scroller} className="inspector-list" role="listbox" aria-label="Events" tabIndex={0}>
      <div style={{ height: positions.length * ROW_PX, position: 'relative' }}>{rows}</div>
    </div>
  );
});

function EventDetail({ timeline, position }: { timeline: Timeline; position: number | null }) {
  const detail = useMemo(() => {
    if (position === null) return null;
    const { before, after } = timeline.statesAround(position);
    const conversations = after.tables.size('conversations');
    const messages = after.tables.size('messages');
    const queued = [...after.queue.values()].reduce((k, q) => k + q.length, 0);
    return { diff: formatDiff(diffStates(before, after)), summary: `${conversations} conversations, ${messages} messages, ${queued} queued, ${after.payments.records.length} deposits, theme ${after.preferences.theme}` };
  }, [timeline, position]);
  if (position === null || detail === null) return <section className="inspector-detail muted">Choose an event to see it, the state after it and what it changed.</section>;
  const e = timeline.events[position - 1] as LogEvent;
  const { payload, ...envelope } = e;
  return (
    <section className="inspector-detail" aria-label="Event">
      <h2>
        Event {position}: {e.type}
      </h2>
      <pre className="inspector-pre">{JSON.stringify(envelope, null, 2)}</pre>
      <h3>Payload</h3>
      <pre className="inspector-pre">{JSON.stringify(payload, null, 2)}</pre>
      <h3>State after it</h3>
      <p>{detail.summary}</p>
      <h3>What it changed</h3>
      <pre className="inspector-pre inspector-diff" aria-label="Changes">
        {detail.diff.join('\n')}
      </pre>
    </section>
  );
}

function Scrubber({ timeline, slugs, initial, at }: { timeline: Timeline; slugs: string[]; initial: string; at: number | null }) {
  const [slug, setSlug] = useState(initial);
  const [position, setPosition] = useState(timeline.length);
  // Both deferred: a selected event's detail paints first; the conversation follows in a render React can split.
  const shown = useDeferredValue(position);
  const shownSlug = useDeferredValue(slug);
  const models = useQuery({ kind: 'models' });
  const id = useId();
  useEffect(() => {
    if (initial !== '') setSlug(initial);
  }, [initial]);
  useEffect(() => {
    if (at !== null) setPosition(at);
  }, [at]);
  const view = useMemo(() => {
    if (shownSlug === '') return null;
    const state = conversationState(timeline.stateAt(shown), shownSlug);
    return { name: state.conversation?.name ?? null, rows: state.messages };
  }, [timeline, shownSlug, shown]);
  const e = shown > 0 ? timeline.events[shown - 1] : undefined;
  return (
    <section className="inspector-scrub" aria-label="Time scrubber">
      <h2>The conversation as it was</h2>
      <div className="inspector-scrub-controls">
        <select aria-label="Conversation to show" value={slug} onChange={(ev) => setSlug(ev.target.value)}>
          <option value="">Choose a conversation</option>
          <SlugOptions slugs={slugs} />
        </select>
        <label htmlFor={id}>Position</label>
        <input id={id} type="range" min={0} max={timeline.length} value={position} onChange={(ev) => setPosition(Number(ev.target.value))} />
        <output htmlFor={id}>
          {shown} of {timeline.length}
          {e ? ` · ${time(e.at)}` : ''}
        </output>
      </div>
      {view && (
        // The app's own message list, read-only: its branch navigator switches in this view; no other action.
        <div className="inspector-conversation">
          <p className="muted">{view.name === null ? 'This conversation does not exist yet at this point.' : `“${view.name}” · ${view.rows.length} messages`}</p>
          <ReadOnlyConversation rows={view.rows} models={models?.models ?? []} empty={<p className="muted">No messages yet.</p>} />
        </div>
      )}
    </section>
  );
}

const ExportRepro = memo(function ExportRepro({ log, slugs }: { log: Loaded; slugs: string[] }) {
  const [slug, setSlug] = useState('');
  const [redact, setRedact] = useState(true);
  const [done, setDone] = useState<string | null>(null);
  function exportRepro() {
    let events = trimLog(log.events, slug);
    if (redact) events = events.map(redactEvent);
    const text = encodeLog(events, { exportedAt: log.exportedAt });
    download(`parley-repro-${slug}.ndjson`, text);
    setDone(`${events.length} of ${log.events.length} events exported${redact ? ', text redacted' : ''}.`);
  }
  return (
    <section className="inspector-export" aria-label="Export a repro">
      <h2>Export a repro</h2>
      <p className="muted">The events one conversation depends on, as a smaller log that replays to the same state of it.</p>
      <select aria-label="Conversation for the repro" value={slug} onChange={(e) => setSlug(e.target.value)}>
        <option value="">Choose a conversation</option>
        <SlugOptions slugs={slugs} />
      </select>
      <label className="inspector-check">
        <input type="checkbox" checked={redact} onChange={(e) => setRedact(e.target.checked)} /> Redact message text
      </label>
      <button type="button" disabled={slug === ''} onClick={exportRepro}>
        Export repro
      </button>
      {done && <p role="status">{done}</p>}
    </section>
  );
});

/** One option per conversation (memo: hundreds on a large log, the same on every render of the page). */
const SlugOptions = memo(function SlugOptions({ slugs }: { slugs: readonly string[] }) {
  return slugs.map((s) => (
    <option key={s} value={s}>
      {s}
    </option>
  ));
});

/** One filter chosen from a list, "any" first (the event type, the conversation). */
const ChoiceFilter = memo(function ChoiceFilter({ id, label, any, value, choices, onChange }: { id: string; label: string; any: string; value: string; choices: readonly string[]; onChange(v: string): void }) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{any}</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </>
  );
});
