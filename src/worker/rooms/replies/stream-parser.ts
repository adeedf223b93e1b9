/**
 * Incremental parser of the streamed chat reply (POST /api/stream-gpt), framing in src/protocol/stream.ts:
 * plain text; `<think>`...`</think>` thinking; the literal CLEAR_THINKING_MESSAGE discards the thinking received so
 * far (wherever it appears, inside or outside a think block); a final `<metadata>{json}</metadata>` after which
 * nothing counts; FRAME_BREAK (`<!>`), which the gateway puts inside a marker that model text contains, is dropped.
 *
 * Written by hand: no library parses this ad-hoc framing. Design points:
 *  - one streaming TextDecoder, so a multi-byte UTF-8 character split across chunks decodes correctly;
 *  - a marker split across chunks at any position is recognised: at the end of each chunk only the shortest
 *    suffix that could still be the start of a marker is held back (for ordinary text, nothing is held back);
 *  - work is done on read, not on push: push() only keeps the bytes; the next read of any property decodes what
 *    came since the last read with one decode call and scans it once. A burst of chunks (a fast model, a tab
 *    that was in the background, a replay) costs one decode and one native search pass instead of one per chunk;
 *    a reader that reads after every chunk gets the same results, chunk by chunk;
 *  - fast path: text in which no marker can start (each '<' and 'C' found is checked on the spot) is appended as
 *    is; the general loop runs only around real markers;
 *  - text and thinking accumulate with `+=`, which V8 implements as ropes (linear overall, flattened once on
 *    read), so nothing is rescanned and nothing is quadratic.
 */
import {
  CLEAR_THINKING_MESSAGE,
  FRAME_BREAK,
  METADATA_CLOSE,
  METADATA_OPEN,
  THINK_CLOSE,
  THINK_OPEN,
  type PaymentSource,
  type StreamMetadata,
} from '../../../protocol/stream';

const enum Mode {
  Text = 0,
  Think = 1,
  Metadata = 2,
  Done = 3,
}

const CLEAR_LEN = CLEAR_THINKING_MESSAGE.length;
const STREAM: TextDecodeOptions = { stream: true };
const EMPTY = new Uint8Array(0);
const MIN_BUFFER = 4096;
/** A buffer grown past this by a burst is dropped once drained. */
const MAX_IDLE_BUFFER = 1 << 16;
/** Longest metadata tag accepted (characters); a longer one is dropped with metadataError. */
export const MAX_METADATA_CHARS = 64 * 1024;

/** Error texts of the metadata tag (engine-side, not shown to users verbatim). */
export const METADATA_ERRORS = {
  unterminated: 'Unterminated metadata tag',
  notObject: 'Metadata is not a JSON object',
  malformed: 'Malformed metadata JSON',
  tooLarge: 'Metadata tag too large',
} as const;

/** True when `s.slice(from)` is a proper (shorter) prefix of `marker`. */
function isProperPrefixAt(s: string, from: number, marker: string): boolean {
  const len = s.length - from;
  if (len <= 0 || len >= marker.length) return false;
  for (let k = 0; k < len; k++) {
    if (s.charCodeAt(from + k) !== marker.charCodeAt(k)) return false;
  }
  return true;
}

/** True when `marker` starts at `from` in `s`, in full or cut short by the end of `s` (first char assumed equal). */
function mayStartAt(s: string, from: number, marker: string): boolean {
  const end = Math.min(s.length - from, marker.length);
  for (let k = 1; k < end; k++) {
    if (s.charCodeAt(from + k) !== marker.charCodeAt(k)) return false;
  }
  return true;
}

/** True when neither CLEAR_THINKING_MESSAGE, `<metadata>`, FRAME_BREAK nor `think` (the think tag that counts) starts in `s`. */
function noMarkerIn(s: string, think: string): boolean {
  let c = s.indexOf('<');
  while (c !== -1) {
    if (mayStartAt(s, c, think) || mayStartAt(s, c, METADATA_OPEN) || mayStartAt(s, c, FRAME_BREAK)) return false;
    c = s.indexOf('<', c + 1);
  }
  c = s.indexOf('C');
  while (c !== -1) {
    if (mayStartAt(s, c, CLEAR_THINKING_MESSAGE)) return false;
    c = s.indexOf('C', c + 1);
  }
  return true;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * Validate the metadata object field by field: a field of the wrong type is dropped, unknown fields are dropped.
 * Returns null when the value is not a plain object.
 */
export function validateMetadata(value: unknown): StreamMetadata | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const out: StreamMetadata = {};
  if (isFiniteNumber(o.cost)) out.cost = o.cost;
  if (o.paymentSource === 'USD' || o.paymentSource === 'nano') out.paymentSource = o.paymentSource satisfies PaymentSource;
  if (isFiniteNumber(o.inputTokens)) out.inputTokens = o.inputTokens;
  if (isFiniteNumber(o.outputTokens)) out.outputTokens = o.outputTokens;
  if (typeof o.isPartial === 'boolean') out.isPartial = o.isPartial;
  if (typeof o.error === 'string') out.error = o.error;
  if (typeof o.isStreamStall === 'boolean') out.isStreamStall = o.isStreamStall;
  if (typeof o.billingError === 'boolean') out.billingError = o.billingError;
  if (typeof o.model === 'string') out.model = o.model;
  if (typeof o.webNotice === 'string') out.webNotice = o.webNotice;
  return out;
}

export class ReplyStreamParser {
  private readonly decoder = new TextDecoder('utf-8');
  private mode: Mode = Mode.Text;
  /** Held-back tail of the previous chunk that may be the start of a marker (never longer than a marker). */
  private pending = '';
  private textAcc = '';
  private thinkingAcc = '';
  /** The last chunk pushed, not copied yet (the common case of a reader that reads after every chunk). */
  private held: Uint8Array | null = null;
  /** Bytes pushed but not decoded yet: buf[0, bufLen) (a burst of chunks). */
  private buf: Uint8Array = EMPTY;
  private bufLen = 0;
  /** Decoded text pushed but not scanned yet (a V8 rope: appending is O(1), flattened once when scanned). */
  private unread = '';
  /** Raw text inside the metadata tag so far. */
  private metaRaw = '';
  private meta: StreamMetadata | null = null;
  private metaError: string | null = null;
  /** finish() was called or the metadata tag closed: further input is ignored. */
  private closed = false;

  /** Reply text so far (markers, thinking and metadata removed). */
  get text(): string {
    this.sync();
    return this.textAcc;
  }
  /** Thinking text so far (since the last CLEAR_THINKING_MESSAGE). */
  get thinking(): string {
    this.sync();
    return this.thinkingAcc;
  }
  /** Validated metadata once the tag has closed; null before, or when it was malformed. */
  get metadata(): StreamMetadata | null {
    this.sync();
    return this.meta;
  }
  /** Why the metadata tag could not be used (malformed JSON, not an object, unterminated). */
  get metadataError(): string | null {
    this.sync();
    return this.metaError;
  }
  /** Inside a `<think>` block not closed yet (stays true after finish() when the stream ended inside one). */
  get thinkingOpen(): boolean {
    this.sync();
    return this.mode === Mode.Think;
  }
  /** finish() was called, or the metadata tag closed (anything after it is ignored). */
  get done(): boolean {
    this.sync();
    return this.closed;
  }

  /**
   * Take a chunk. Decoding (one streaming TextDecoder) and scanning are deferred to the next read of any property:
   * a burst of chunks read once (the engine publishes at most every 150 ms) is copied into one buffer, decoded
   * with one call and scanned in one pass of native string search; a reader that reads after every chunk gets
   * exactly the same results chunk by chunk. The parser may keep a reference to the last chunk until the next
   * push or read, so do not overwrite a pushed buffer in place (stream readers hand out fresh ones). String
   * chunks are taken as already decoded text (they do not complete a UTF-8 sequence cut at the end of bytes).
   */
  push(chunk: Uint8Array | string): void {
    if (this.closed) return;
    if (typeof chunk === 'string') {
      if (chunk.length !== 0) {
        this.decodeBuffered();
        this.unread += chunk;
      }
      return;
    }
    const n = chunk.length;
    if (n === 0) return;
    if (this.held === null && this.bufLen === 0) {
      this.held = chunk;
      return;
    }
    if (this.held !== null) {
      const h = this.held;
      this.held = null;
      this.append(h);
    }
    this.append(chunk);
  }

  /** End of stream: flush the decoder and any held-back text; an open metadata tag becomes metadataError. */
  finish(): void {
    if (this.closed) return;
    this.decodeBuffered();
    const rest = this.decoder.decode();
    if (rest.length > 0) this.unread += rest;
    this.sync();
    if (this.closed) return;
    this.closed = true;
    const p = this.pending;
    this.pending = '';
    if (this.mode === Mode.Text) this.textAcc += p;
    else if (this.mode === Mode.Think) this.thinkingAcc += p;
    else if (this.mode === Mode.Metadata) this.metaError = METADATA_ERRORS.unterminated;
  }

  /** Scan what was pushed since the last read. */
  private sync(): void {
    let s: string;
    if (this.held !== null && this.unread.length === 0) {
      // The common per-chunk case: one chunk since the last read.
      s = this.decoder.decode(this.held, STREAM);
      this.held = null;
    } else {
      if (this.held !== null || this.bufLen !== 0) this.decodeBuffered();
      s = this.unread;
      this.unread = '';
    }
    if (s.length === 0) return;
    if (this.pending.length !== 0) {
      const p = this.pending;
      this.pending = '';
      this.consume(p + s);
      return;
    }
    // Fast path: when no marker starts anywhere in this text, not even one cut by its end, append it as it is.
    // Markers start with '<' or 'C' (CLEAR_THINKING_MESSAGE); each one found is checked on the spot.
    const mode = this.mode;
    if (mode === Mode.Text || mode === Mode.Think) {
      if (noMarkerIn(s, mode === Mode.Text ? THINK_OPEN : THINK_CLOSE)) {
        if (mode === Mode.Text) this.textAcc += s;
        else this.thinkingAcc += s;
        return;
      }
    }
    this.consume(s);
  }

  private decodeBuffered(): void {
    let s: string;
    if (this.held !== null) {
      s = this.decoder.decode(this.held, STREAM);
      this.held = null;
    } else if (this.bufLen !== 0) {
      s = this.decoder.decode(this.buf.subarray(0, this.bufLen), STREAM);
      this.bufLen = 0;
      if (this.buf.length > MAX_IDLE_BUFFER) this.buf = EMPTY;
    } else return;
    if (s.length !== 0) this.unread += s;
  }

  private append(chunk: Uint8Array): void {
    const need = this.bufLen + chunk.length;
    if (need > this.buf.length) this.grow(need);
    this.buf.set(chunk, this.bufLen);
    this.bufLen = need;
  }

  private grow(need: number): void {
    let cap = this.buf.length < MIN_BUFFER ? MIN_BUFFER : this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    if (this.bufLen !== 0) next.set(this.buf.subarray(0, this.bufLen));
    this.buf = next;
  }

  private consume(s: string): void {
    const n = s.length;
    let start = 0; // start of the piece not yet emitted
    let i = 0; // where the next search begins
    // Position of the next CLEAR_THINKING_MESSAGE at or after i (-2 = not searched yet, -1 = none).
    let clear = -2;
    for (;;) {
      const mode = this.mode;
      if (mode === Mode.Metadata) {
        this.consumeMetadata(s, start);
        return;
      }
      if (mode === Mode.Done) return;
      const lt = i < n ? s.indexOf('<', i) : -1;
      if (clear === -2 || (clear >= 0 && clear < i)) clear = i < n ? s.indexOf(CLEAR_THINKING_MESSAGE, i) : -1;
      if (lt === -1 && clear === -1) {
        // No marker starts here. Hold back a tail that may be the start of CLEAR_THINKING_MESSAGE.
        let end = n;
        const tail = n - CLEAR_LEN + 1;
        let c = s.indexOf('C', tail > i ? tail : i);
        while (c !== -1) {
          if (isProperPrefixAt(s, c, CLEAR_THINKING_MESSAGE)) {
            end = c;
            break;
          }
          c = s.indexOf('C', c + 1);
        }
        if (end > start) this.emit(mode, start === 0 && end === n ? s : s.slice(start, end));
        if (end < n) this.pending = s.slice(end);
        return;
      }
      if (clear !== -1 && (lt === -1 || clear < lt)) {
        if (clear > start && mode === Mode.Text) this.emit(mode, s.slice(start, clear));
        this.thinkingAcc = '';
        start = i = clear + CLEAR_LEN;
        continue;
      }
      // A '<' comes first: a marker, the start of a marker cut by the chunk end, or a literal '<'.
      let marker = '';
      let next: Mode = mode;
      if (mode === Mode.Text) {
        if (s.startsWith(THINK_OPEN, lt)) {
          marker = THINK_OPEN;
          next = Mode.Think;
        }
      } else if (s.startsWith(THINK_CLOSE, lt)) {
        marker = THINK_CLOSE;
        next = Mode.Text;
      }
      if (marker === '' && s.startsWith(METADATA_OPEN, lt)) {
        marker = METADATA_OPEN;
        next = Mode.Metadata;
      }
      if (marker === '' && s.startsWith(FRAME_BREAK, lt)) {
        // An escaped marker: the break goes, the text around it stays in the current mode.
        marker = FRAME_BREAK;
      }
      if (marker !== '') {
        if (lt > start) this.emit(mode, s.slice(start, lt));
        this.mode = next;
        start = i = lt + marker.length;
        continue;
      }
      if (
        isProperPrefixAt(s, lt, METADATA_OPEN) ||
        isProperPrefixAt(s, lt, FRAME_BREAK) ||
        (mode === Mode.Text ? isProperPrefixAt(s, lt, THINK_OPEN) : isProperPrefixAt(s, lt, THINK_CLOSE))
      ) {
        // The rest of the chunk may be a marker cut short by the chunk end: hold it back.
        if (lt > start) this.emit(mode, s.slice(start, lt));
        this.pending = s.slice(lt);
        return;
      }
      i = lt + 1; // a literal '<', part of the current piece
    }
  }

  private consumeMetadata(s: string, from: number): void {
    const prevLen = this.metaRaw.length;
    this.metaRaw += from === 0 ? s : s.slice(from);
    const searchFrom = prevLen > METADATA_CLOSE.length ? prevLen - METADATA_CLOSE.length + 1 : 0;
    const end = this.metaRaw.indexOf(METADATA_CLOSE, searchFrom);
    const tooLarge = (end === -1 ? this.metaRaw.length - METADATA_CLOSE.length : end) > MAX_METADATA_CHARS;
    if (end === -1 && !tooLarge) return;
    const raw = tooLarge ? '' : this.metaRaw.slice(0, end);
    this.metaRaw = '';
    this.mode = Mode.Done;
    this.closed = true;
    if (tooLarge) {
      this.metaError = METADATA_ERRORS.tooLarge;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      this.metaError = METADATA_ERRORS.malformed;
      return;
    }
    const meta = validateMetadata(parsed);
    if (meta === null) this.metaError = METADATA_ERRORS.notObject;
    else this.meta = meta;
  }

  private emit(mode: Mode, piece: string): void {
    if (mode === Mode.Text) this.textAcc += piece;
    else this.thinkingAcc += piece;
  }
}

export interface ParsedReply {
  text: string;
  thinking: string;
  metadata: StreamMetadata | null;
  metadataError: string | null;
  thinkingOpen: boolean;
}

/** Parse a whole recorded stream (pure helper for tests and replays). */
export function parseReplyStream(chunks: Iterable<Uint8Array | string>): ParsedReply {
  const p = new ReplyStreamParser();
  for (const c of chunks) p.push(c);
  p.finish();
  return {
    text: p.text,
    thinking: p.thinking,
    metadata: p.metadata,
    metadataError: p.metadataError,
    thinkingOpen: p.thinkingOpen,
  };
}
