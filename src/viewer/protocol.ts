/**
 * The code viewer's Python worker protocol (issue 8 item 5): what the page sends the worker (src/viewer/
 * python-worker.ts) and what comes back, with guards for the page side, and the output buffer the worker writes
 * stdout and stderr through. Pure: no DOM, no worker globals, no clock of its own.
 *
 *   page -> worker   { type: 'run', id, code }
 *   worker -> page   { type: 'ready', version, ms }           Pyodide loaded (once per worker)
 *                    { type: 'loadFailed', error }            it could not load (the worker is useless)
 *                    { type: 'output', id, stream, text }     stdout / stderr of run `id`, batched
 *                    { type: 'done', id, ok: true, result, ms }    finished; result = repr of the last expression
 *                    { type: 'done', id, ok: false, error, ms }    raised; error = the Python traceback
 *                    (fatal: true when the runtime itself broke: the page replaces the worker)
 *
 * Stop and the time limit do not go through the protocol: the page terminates the worker (the app is not
 * cross-origin isolated, so there is no SharedArrayBuffer interrupt buffer), which stops any code, even a loop
 * inside C, at once.
 */

export type OutputStream = 'stdout' | 'stderr';

export interface RunRequest {
  type: 'run';
  id: number;
  code: string;
}

export type WorkerMessage =
  | { type: 'ready'; version: string; ms: number }
  | { type: 'loadFailed'; error: string }
  | { type: 'output'; id: number; stream: OutputStream; text: string }
  | { type: 'done'; id: number; ok: true; result: string | null; ms: number }
  /** fatal: the runtime itself failed (not a Python exception); the worker must not be used again. */
  | { type: 'done'; id: number; ok: false; error: string; ms: number; fatal?: boolean };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isMs = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function isRunRequest(v: unknown): v is RunRequest {
  return isObj(v) && v.type === 'run' && isId(v.id) && typeof v.code === 'string';
}

/** A message from the worker, checked before the page believes it (a worker is code, but the check is cheap). */
export function isWorkerMessage(v: unknown): v is WorkerMessage {
  if (!isObj(v)) return false;
  switch (v.type) {
    case 'ready':
      return typeof v.version === 'string' && isMs(v.ms);
    case 'loadFailed':
      return typeof v.error === 'string';
    case 'output':
      return isId(v.id) && (v.stream === 'stdout' || v.stream === 'stderr') && typeof v.text === 'string';
    case 'done':
      if (!isId(v.id) || !isMs(v.ms)) return false;
      if (v.ok === true) return v.result === null || typeof v.result === 'string';
      return v.ok === false && typeof v.error === 'string' && (v.fatal === undefined || typeof v.fatal === 'boolean');
    default:
      return false;
  }
}

/** Most output one run sends to the page (characters); past it, one note says the rest was dropped. */
export const OUTPUT_LIMIT_CHARS = 200_000;
/** Output is sent at most this often while code runs (a print loop must not flood the page). */
export const OUTPUT_FLUSH_MS = 50;
/** ...or when this much is waiting. */
export const OUTPUT_FLUSH_CHARS = 16_384;
export const OUTPUT_TRUNCATED = `\n[output truncated: more than ${OUTPUT_LIMIT_CHARS.toLocaleString('en-US')} characters]\n`;

export interface OutputChunk {
  stream: OutputStream;
  text: string;
}

/**
 * Collects one run's stdout and stderr in order and hands them out in batches: when OUTPUT_FLUSH_MS passed since
 * the last batch, when OUTPUT_FLUSH_CHARS are waiting, or on `flush()` at the end. Past OUTPUT_LIMIT_CHARS in all,
 * the rest is dropped and one truncation note (on stderr) is sent instead. `now` is the caller's clock.
 */
export class OutputBuffer {
  private pending: OutputChunk[] = [];
  private pendingChars = 0;
  private total = 0;
  private truncated = false;
  private lastFlush: number;

  constructor(
    private readonly send: (chunks: OutputChunk[]) => void,
    private readonly now: () => number,
  ) {
    this.lastFlush = now();
  }

  write(stream: OutputStream, text: string): void {
    if (this.truncated || text === '') return;
    const room = OUTPUT_LIMIT_CHARS - this.total;
    if (text.length > room) {
      this.add(stream, text.slice(0, room));
      this.add('stderr', OUTPUT_TRUNCATED);
      this.truncated = true;
      this.flush();
      return;
    }
    this.add(stream, text);
    if (this.pendingChars >= OUTPUT_FLUSH_CHARS || this.now() - this.lastFlush >= OUTPUT_FLUSH_MS) this.flush();
  }

  flush(): void {
    this.lastFlush = this.now();
    if (this.pending.length === 0) return;
    const chunks = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    this.send(chunks);
  }

  private add(stream: OutputStream, text: string): void {
    if (text === '') return;
    this.total += text.length;
    this.pendingChars += text.length;
    const last = this.pending.at(-1);
    if (last && last.stream === stream) last.text += text;
    else this.pending.push({ stream, text });
  }
}
