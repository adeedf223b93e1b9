/**
 * The exported event log: NDJSON (one JSON value per line, UTF-8).
 *
 *   line 1:    {"format":"parley-event-log","version":1,"schema":42,"exportedAt":<ms>,"count":N}
 *   line 2..:  one event per line: {"seq":1,"type":"message.added","v":2,"id":"...","at":<ms>,"payload":{...}}
 *
 * The file ends with a newline. Decoding accepts LF or CRLF line ends, a UTF-8 BOM and trailing blank lines,
 * validates the header and every event (envelope, known type, version, payload structure), rejects duplicate ids
 * and a count that does not match, and upcasts every event to the current version. Errors name the line.
 */
import type { NewEvent, RawEvent, StoredEvent } from './catalogue';
import { UpcastError, upcast } from './upcasters';

export const LOG_FORMAT = 'parley-event-log';
export const LOG_FORMAT_VERSION = 1;
/** The local database schema version the log's read models belong to (spec 000 section 3). */
export const LOG_SCHEMA = 42;

export interface LogHeader {
  format: typeof LOG_FORMAT;
  version: number;
  schema: number;
  exportedAt: number;
  count: number;
}

export interface LogMeta {
  /** Milliseconds; the caller supplies the clock (this module is pure). */
  exportedAt: number;
}

export interface DecodedLog {
  header: LogHeader;
  /** Upcast to current versions, in file order. `seq` is kept when the file has it (it is reassigned on import). */
  events: (NewEvent | StoredEvent)[];
}

export class LogFormatError extends Error {
  override readonly name = 'LogFormatError';
  constructor(
    /** 1-based line number of the offending line (1 = header). */
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

/** One event as its NDJSON line (no newline). Fields in a fixed order: seq, type, v, id, at, payload. */
export function encodeEvent(e: NewEvent | StoredEvent | RawEvent): string {
  const seq = (e as RawEvent).seq;
  return JSON.stringify(
    seq === undefined
      ? { type: e.type, v: e.v, id: e.id, at: e.at, payload: e.payload }
      : { seq, type: e.type, v: e.v, id: e.id, at: e.at, payload: e.payload },
  );
}

export function encodeHeader(count: number, meta: LogMeta): string {
  const header: LogHeader = { format: LOG_FORMAT, version: LOG_FORMAT_VERSION, schema: LOG_SCHEMA, exportedAt: meta.exportedAt, count };
  return JSON.stringify(header);
}

/** Encode a whole log: header line, one line per event, final newline. */
export function encodeLog(events: readonly (NewEvent | StoredEvent | RawEvent)[], meta: LogMeta): string {
  const lines = new Array<string>(events.length + 1);
  lines[0] = encodeHeader(events.length, meta);
  for (let i = 0; i < events.length; i++) lines[i + 1] = encodeEvent(events[i]!);
  return `${lines.join('\n')}\n`;
}

function parseLine(line: string, n: number): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (e) {
    throw new LogFormatError(n, `not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

function checkHeader(value: unknown): LogHeader {
  const fail = (reason: string): never => {
    throw new LogFormatError(1, reason);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('header must be a JSON object');
  const h = value as Record<string, unknown>;
  if (h.format !== LOG_FORMAT) return fail(`not a Parley event log (header.format is ${JSON.stringify(h.format)}, expected "${LOG_FORMAT}")`);
  if (typeof h.version !== 'number' || !Number.isInteger(h.version)) return fail('header.version must be an integer');
  if (h.version > LOG_FORMAT_VERSION) return fail(`log format version ${h.version} is newer than this build reads (${LOG_FORMAT_VERSION}); update the app`);
  if (h.version < 1) return fail(`unknown log format version ${h.version}`);
  if (typeof h.schema !== 'number' || !Number.isInteger(h.schema)) return fail('header.schema must be an integer');
  if (typeof h.exportedAt !== 'number' || !Number.isFinite(h.exportedAt)) return fail('header.exportedAt must be a number (milliseconds)');
  if (typeof h.count !== 'number' || !Number.isSafeInteger(h.count) || h.count < 0) return fail('header.count must be a non-negative integer');
  return { format: LOG_FORMAT, version: h.version, schema: h.schema, exportedAt: h.exportedAt, count: h.count };
}

export interface LogStream {
  header: LogHeader;
  /**
   * The events, decoded, validated and upcast one line at a time as they are iterated (so a replay can fold a
   * large log without holding every event). Iterating throws LogFormatError at the first bad line, and at the end
   * when the count does not match the header. Iterate once.
   */
  events: Iterable<NewEvent | StoredEvent>;
}

/** Read the header now and the events lazily (see LogStream). */
export function iterateLog(text: string): LogStream {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // End of content: drop trailing blank lines (a final newline, CRLF leftovers, editor padding).
  let end = body.length;
  while (end > 0) {
    const c = body.charCodeAt(end - 1);
    if (c === 10 || c === 13 || c === 32 || c === 9) end--;
    else break;
  }
  if (end === 0) throw new LogFormatError(1, 'empty file: the header line is missing');
  const firstBreak = body.indexOf('\n');
  const headerEnd = firstBreak === -1 || firstBreak > end ? end : firstBreak;
  const header = checkHeader(parseLine(stripCr(body.slice(0, headerEnd)), 1));
  return { header, events: eventLines(body, headerEnd + 1, end, header.count) };
}

function stripCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}

function* eventLines(body: string, from: number, end: number, count: number): Generator<NewEvent | StoredEvent> {
  // Ids only (a Set is cheaper than a Map of id -> line on every event); the first line of a duplicate is found
  // again by reading from the start, which only a bad file pays for.
  const seen = new Set<string>();
  let pos = from;
  let n = 1;
  let decoded = 0;
  while (pos < end) {
    n++;
    let next = body.indexOf('\n', pos);
    if (next === -1 || next > end) next = end;
    const line = stripCr(body.slice(pos, next));
    pos = next + 1;
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '')) throw new LogFormatError(n, 'empty line inside the log');
    const raw = parseLine(line, n);
    let event: NewEvent | StoredEvent;
    try {
      event = upcast(raw as RawEvent, { validate: true });
    } catch (e) {
      if (e instanceof UpcastError) throw new LogFormatError(n, e.message);
      throw e;
    }
    // One hash lookup: an id already there leaves the size as it was.
    const known = seen.size;
    if (seen.add(event.id).size === known) throw new LogFormatError(n, `duplicate event id '${event.id}' (first on line ${lineOfId(body, from, event.id)})`);
    decoded++;
    yield event;
  }
  if (decoded !== count) {
    throw new LogFormatError(Math.max(n, 1), `header says ${count} events but the file has ${decoded} (truncated or edited file?)`);
  }
}

/** The 1-based line number of the first event line (from `from`, line 2) whose id is `id`: lines already read. */
function lineOfId(body: string, from: number, id: string): number {
  let pos = from;
  for (let n = 2; ; n++) {
    let next = body.indexOf('\n', pos);
    if (next === -1) next = body.length;
    if ((JSON.parse(stripCr(body.slice(pos, next))) as { id?: unknown }).id === id) return n;
    pos = next + 1;
  }
}

/** Decode and validate a whole NDJSON log. Throws LogFormatError (with the line number) on malformed input. */
export function decodeLog(text: string): DecodedLog {
  const { header, events } = iterateLog(text);
  return { header, events: [...events] };
}
