/**
 * A projection (LiveStore calls its parts materializers): pure functions from one event to the writes it causes on
 * the read-model tables the projection owns, one per event it handles, keyed by the event's name. It never reads
 * state; everything it needs is in the event. An event it does not list changes nothing of its tables.
 *
 * `version` is bumped whenever a materializer changes meaning: the worker then rebuilds the projection's tables
 * from the log (src/worker/log.ts ensureProjectionsCurrent). A projection writes only to its own `tables`;
 * rebuilding clears exactly those.
 *
 * A materializer may also be written as a writer: the same pure function, but it sends its writes to a sink instead
 * of returning them (`out.put(...)` for `put(...)`). A fold hands writers the memory store itself, so the events of
 * a replay make no Write objects; the worker's append path gets the same writes as Write ops (a WriteList). The
 * hot events of the large projections are writers; a projection gives each event one or the other.
 */
import type { EventPayloads, EventType, NewEvent, StoredEvent } from '../events/catalogue';
import type { ChatPart } from '../protocol/api';
import { sendWrite, WriteList } from './writes';
import type { TableName, Write, WriteSink } from './writes';

export type ProjectedEvent = StoredEvent | NewEvent;

/** The event of type K (a stored one also has its `seq`). */
export type EventOf<K extends EventType> = Extract<NewEvent, { type: K }>;

/** The writes one event of type K causes; its payload is typed by the event's declaration. */
export type Materializer<K extends EventType> = (payload: EventPayloads[K], event: EventOf<K>) => Write[];

/** Materializers by event name: only the events handled (a misspelt name is a type error). */
export type Materializers = { readonly [K in EventType]?: Materializer<K> };

/** A materializer that sends the writes of one event of type K to `out`, in order, instead of returning them. */
export type Writer<K extends EventType> = (payload: EventPayloads[K], event: EventOf<K>, out: WriteSink) => void;

/** Writers by event name. */
export type Writers = { readonly [K in EventType]?: Writer<K> };

/** A materializer called with an event whose type was looked up at run time. */
type AnyMaterializer = (payload: ProjectedEvent['payload'], event: ProjectedEvent) => Write[];
/** A writer called with an event whose type was looked up at run time. */
export type AnyWriter = (payload: ProjectedEvent['payload'], event: ProjectedEvent, out: WriteSink) => void;

export interface Projection {
  readonly name: string;
  readonly version: number;
  readonly tables: readonly TableName[];
  /** Every event it handles, as a materializer (a writer given in the spec is wrapped to return its writes). */
  readonly materializers: Materializers;
  /** Every event it handles, as a writer (a materializer given in the spec is wrapped to send its writes). */
  readonly writers: Writers;
  /** The writes of any one event ([] for an event it does not handle). */
  apply(event: ProjectedEvent): Write[];
}

const NONE: Write[] = [];

/** The materializer of a writer: the writes it sends, as a list. */
function collecting(w: AnyWriter): AnyMaterializer {
  return (payload, event) => {
    const out = new WriteList();
    w(payload, event, out);
    return out.writes;
  };
}

/** The writer of a materializer: its writes, sent in order once it has returned them all. */
function sending(m: AnyMaterializer): AnyWriter {
  return (payload, event, out) => {
    const writes = m(payload, event);
    for (let i = 0; i < writes.length; i++) sendWrite(out, writes[i] as Write);
  };
}

export function defineProjection(spec: {
  name: string;
  version: number;
  tables: readonly TableName[];
  materializers?: Materializers;
  writers?: Writers;
}): Projection {
  const materializers: Record<string, AnyMaterializer> = {};
  const writers: Record<string, AnyWriter> = {};
  for (const [type, m] of Object.entries(spec.materializers ?? {}) as [string, AnyMaterializer][]) {
    materializers[type] = m;
    writers[type] = sending(m);
  }
  for (const [type, w] of Object.entries(spec.writers ?? {}) as [string, AnyWriter][]) {
    if (type in materializers) throw new Error(`projection ${spec.name}: '${type}' has both a materializer and a writer`);
    writers[type] = w;
    materializers[type] = collecting(w);
  }
  const byType = new Map(Object.entries(materializers));
  return {
    name: spec.name,
    version: spec.version,
    tables: spec.tables,
    materializers: materializers as Materializers,
    writers: writers as Writers,
    apply(event) {
      const m = byType.get(event.type);
      return m === undefined ? NONE : m(event.payload, event);
    },
  };
}

/** For each event type, the materializers of `projections` that handle it, in projection order. */
export type Dispatch = ReadonlyMap<string, readonly AnyMaterializer[]>;

const dispatches = new WeakMap<readonly Projection[], Dispatch>();

/** The dispatch table of a list of projections (computed once per list): one lookup per event when folding. */
export function dispatchOf(projections: readonly Projection[]): Dispatch {
  let table = dispatches.get(projections);
  if (table !== undefined) return table;
  const out = new Map<string, AnyMaterializer[]>();
  for (const p of projections) {
    for (const [type, m] of Object.entries(p.materializers) as [string, AnyMaterializer][]) {
      const list = out.get(type);
      if (list === undefined) out.set(type, [m]);
      else list.push(m);
    }
  }
  dispatches.set(projections, (table = out));
  return table;
}

/** For each event type, the writers of `projections` that handle it, in projection order (what a fold calls). */
export type WriterDispatch = ReadonlyMap<string, readonly AnyWriter[]>;

const writerDispatches = new WeakMap<readonly Projection[], WriterDispatch>();

export function writerDispatchOf(projections: readonly Projection[]): WriterDispatch {
  let table = writerDispatches.get(projections);
  if (table !== undefined) return table;
  const out = new Map<string, AnyWriter[]>();
  for (const p of projections) {
    for (const [type, w] of Object.entries(p.writers) as [string, AnyWriter][]) {
      const list = out.get(type);
      if (list === undefined) out.set(type, [w]);
      else list.push(w);
    }
  }
  writerDispatches.set(projections, (table = out));
  return table;
}

/** Every write of `event` under `dispatch`, pushed onto `out` (in projection order). */
export function writesOfEvent(dispatch: Dispatch, event: ProjectedEvent, out: Write[]): void {
  const list = dispatch.get(event.type);
  if (list === undefined) return;
  for (let i = 0; i < list.length; i++) {
    const writes = (list[i] as AnyMaterializer)(event.payload, event);
    for (let j = 0; j < writes.length; j++) out.push(writes[j] as Write);
  }
}

/** The text of a prompt: a string as is, or the text parts of a multi-part prompt joined by a space. */
export function promptText(prompt: string | ChatPart[]): string {
  if (typeof prompt === 'string') return prompt;
  let out = '';
  for (const part of prompt) {
    if (part.type !== 'text') continue;
    out = out === '' ? part.text : `${out} ${part.text}`;
  }
  return out;
}

/** The first `n` characters (code points, so a surrogate pair is never cut) of `text`. */
export function firstChars(text: string, n: number): string {
  if (text.length <= n) return text;
  const head = text.slice(0, n);
  if (!SURROGATE.test(head)) return head; // common case: n code units are n characters
  let i = 0;
  let count = 0;
  while (i < text.length && count < n) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
    count++;
  }
  return text.slice(0, i);
}
const SURROGATE = /[\uD800-\uDFFF]/;

/** Length of the conversation preview (latestMessage). */
export const LATEST_MESSAGE_CHARS = 100;
