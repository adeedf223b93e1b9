/**
 * Parser of the multi-model line protocol (src/protocol/multi.ts, docs/protocol.md "Multi-model lines"): bytes
 * in, one event per well-formed line out. Lines may be split anywhere across network chunks (inside a JSON
 * string, inside a multi-byte character) and models' lines interleave. A line that is not JSON, or not one of
 * the protocol's shapes, or names a model the request did not ask for, is reported as `malformed` and skipped:
 * one bad line never ends the other models' replies.
 */
import type { MultiStreamLine } from '../../../protocol/multi';
import type { StreamMetadata } from '../../../protocol/stream';

export type MultiStreamEvent =
  | { kind: 'chunk'; modelId: string; text: string }
  | { kind: 'metadata'; modelId: string; metadata: StreamMetadata }
  | { kind: 'error'; modelId: string; error: string; status?: number; code?: string; requiredBalance?: string; requiredUsd?: string }
  | { kind: 'complete'; modelId: string }
  | { kind: 'malformed'; line: string; reason: string };

/** Longest line kept while waiting for its end (a chunk line is one upstream delta; 4 MiB is far beyond one). */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function metadataOf(v: unknown): StreamMetadata | null {
  if (!isRec(v)) return null;
  const m: StreamMetadata = {};
  if (typeof v.cost === 'number' && Number.isFinite(v.cost) && v.cost >= 0) m.cost = v.cost;
  if (v.paymentSource === 'USD' || v.paymentSource === 'nano') m.paymentSource = v.paymentSource;
  if (typeof v.inputTokens === 'number') m.inputTokens = v.inputTokens;
  if (typeof v.outputTokens === 'number') m.outputTokens = v.outputTokens;
  if (typeof v.isPartial === 'boolean') m.isPartial = v.isPartial;
  if (typeof v.error === 'string') m.error = v.error;
  if (typeof v.isStreamStall === 'boolean') m.isStreamStall = v.isStreamStall;
  if (typeof v.billingError === 'boolean') m.billingError = v.billingError;
  if (typeof v.model === 'string') m.model = v.model;
  if (typeof v.webNotice === 'string') m.webNotice = v.webNotice;
  return m;
}

/** One line's event (exported for tests and for the gateway's own checks). */
export function parseMultiLine(text: string, models: ReadonlySet<string> | null): MultiStreamEvent | null {
  const line = text.trim();
  if (line === '') return null;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { kind: 'malformed', line, reason: 'not JSON' };
  }
  if (!isRec(v) || typeof v.modelId !== 'string' || v.modelId === '') return { kind: 'malformed', line, reason: 'no modelId' };
  const modelId = v.modelId;
  if (models && !models.has(modelId)) return { kind: 'malformed', line, reason: `model '${modelId}' was not asked for` };
  const l = v as Partial<Record<keyof MultiStreamLine | 'metadata' | 'isMetadata' | 'isError' | 'error' | 'chunk' | 'complete' | 'status' | 'code', unknown>>;
  if (l.isError === true || (typeof l.error === 'string' && l.isMetadata !== true)) {
    const error = typeof l.error === 'string' && l.error.trim() !== '' ? l.error : 'The model failed';
    const out: MultiStreamEvent = { kind: 'error', modelId, error };
    if (typeof l.status === 'number') out.status = l.status;
    if (typeof l.code === 'string') out.code = l.code;
    const amounts = v as { requiredBalance?: unknown; requiredUsd?: unknown };
    if (typeof amounts.requiredBalance === 'string') out.requiredBalance = amounts.requiredBalance;
    if (typeof amounts.requiredUsd === 'string') out.requiredUsd = amounts.requiredUsd;
    return out;
  }
  if (l.isMetadata === true) {
    const metadata = metadataOf(l.metadata);
    return metadata ? { kind: 'metadata', modelId, metadata } : { kind: 'malformed', line, reason: 'metadata is not an object' };
  }
  if (typeof l.chunk === 'string') return { kind: 'chunk', modelId, text: l.chunk };
  if (l.complete === true) return { kind: 'complete', modelId };
  return { kind: 'malformed', line, reason: 'unknown line' };
}

export class MultiStreamParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private skipping = false;
  private readonly models: ReadonlySet<string> | null;

  /** `models`: the ids the request asked for (lines naming others are malformed); null accepts any. */
  constructor(models: Iterable<string> | null = null) {
    this.models = models ? new Set(models) : null;
  }

  /** Feeds bytes; returns the events of the lines they completed. */
  push(bytes: Uint8Array): MultiStreamEvent[] {
    return this.take(this.decoder.decode(bytes, { stream: true }), false);
  }

  /** The stream ended: a last line without its '\n' still counts. */
  finish(): MultiStreamEvent[] {
    return this.take(this.decoder.decode(), true);
  }

  private take(text: string, end: boolean): MultiStreamEvent[] {
    const out: MultiStreamEvent[] = [];
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      const part = text.slice(from, nl);
      from = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        this.buffer = '';
        continue;
      }
      const e = parseMultiLine(this.buffer + part, this.models);
      this.buffer = '';
      if (e) out.push(e);
    }
    if (!this.skipping) this.buffer += text.slice(from);
    if (this.buffer.length > MAX_LINE_CHARS) {
      out.push({ kind: 'malformed', line: this.buffer.slice(0, 200), reason: 'line too long' });
      this.buffer = '';
      this.skipping = true;
    }
    if (end) {
      if (!this.skipping) {
        const e = parseMultiLine(this.buffer, this.models);
        if (e) out.push(e);
      }
      this.buffer = '';
      this.skipping = false;
    }
    return out;
  }
}
