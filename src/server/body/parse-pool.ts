/**
 * Large request bodies are parsed off the event loop (docs/gateway.md "Untrusted content"). JSON.parse and zod of
 * a 25 MiB body take 25 ms (one big string) to several hundred ms (many tiny parts) of one thread: on the event
 * loop, every other request would wait that long. A body over INLINE_BODY_BYTES is therefore read into shared
 * memory as it arrives (a small copy per network chunk), handed to a worker thread, and what comes back is the
 * digest (./chat-digest.ts): the small validated fields, the binding hash, the token estimate, the offline
 * engine's facts, and each conversation's JSON as bytes, transferred without a copy, which the provider writes to
 * the upstream's socket as they are. The event loop never parses, walks, copies or serialises the conversation.
 *
 * One worker (the gateway's machine has few cores; bodies this large are rare and rate-limited per address), started
 * on the first large body, unref'd, and restarted if it dies. Jobs queue in the worker's own message queue.
 */
import { Worker } from 'node:worker_threads';
import type { BodyDigest, BodyKind } from './chat-digest';
import type { ParseReply } from './parse-worker-job';

/** Bodies up to this size are parsed on the event loop (about 1 ms for any shape; 3 ms at worst, tiny parts). */
export const INLINE_BODY_BYTES = 256 * 1024;

interface Pending {
  resolve: (d: BodyDigest) => void;
  reject: (e: unknown) => void;
}

export class BodyParsePool {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** Parses and validates `chunks` (the body in order) in the worker. */
  async digest(kind: BodyKind, chunks: Uint8Array[]): Promise<BodyDigest> {
    if (this.closed) throw new Error('The gateway is closing');
    const worker = await this.start();
    const id = this.nextId++;
    return new Promise<BodyDigest>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Only one job at a time keeps the worker referenced: an idle worker never keeps the process alive.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, kind, chunks });
    });
  }

  private start(): Promise<Worker> {
    this.ready ??= new Promise<Worker>((resolve, reject) => {
      const w = new Worker(new URL('./parse-worker.mjs', import.meta.url));
      this.worker = w;
      w.unref();
      const fail = (e: unknown): void => {
        this.forget(w, e);
        reject(e);
      };
      w.once('error', fail);
      w.once('exit', (code) => fail(new Error(`The body worker exited (code ${code})`)));
      w.on('message', (m: ParseReply | { ready: true }) => {
        if ('ready' in m) {
          resolve(w);
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref();
        p.resolve(m.digest);
      });
    });
    return this.ready;
  }

  /** The worker died: its jobs fail (answered 500 by the route), the next large body starts a new one. */
  private forget(w: Worker, e: unknown): void {
    if (this.worker !== w) return;
    this.worker = null;
    this.ready = null;
    if (!this.closed) this.log(`body worker stopped: ${e instanceof Error ? e.message : String(e)}`);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    if (w) await w.terminate();
  }
}
