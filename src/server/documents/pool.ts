/**
 * Worker threads that read documents and images for the gateway, so that no request holds the event loop and a
 * hostile file (a decompression bomb, a parser's worst case) is contained: each thread has a heap limit, each job
 * a time limit; a thread that dies or overruns is replaced and its job answers with a clear reason.
 */
import { Worker } from 'node:worker_threads';

export type Job = { kind: 'extract'; ext: string; data: ArrayBuffer } | { kind: 'describe'; data: ArrayBuffer };
export type JobRequest = Job & { id: number };
export type JobReply = { id: number; ok: true; value: string } | { id: number; ok: false; error: string };

export interface PoolOptions {
  /** Threads at most (each reads one job at a time). */
  size: number;
  timeoutMs: number;
  /** Heap limit of a thread (MB). */
  memoryMb: number;
}

export const DEFAULT_POOL: PoolOptions = { size: 1, timeoutMs: 60_000, memoryMb: 768 };

export class JobError extends Error {
  override name = 'JobError';
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

interface Pending {
  job: Job;
  resolve: (v: string) => void;
  reject: (e: Error) => void;
}

export class DocumentPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions = DEFAULT_POOL) {}

  extract(data: Uint8Array, ext: string): Promise<string> {
    return this.run({ kind: 'extract', ext, data: toArrayBuffer(data) });
  }

  describe(data: Uint8Array): Promise<string> {
    return this.run({ kind: 'describe', data: toArrayBuffer(data) });
  }

  private run(job: Job): Promise<string> {
    if (this.closed) return Promise.reject(new JobError('the gateway is shutting down'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { entry: new URL('./worker.ts', import.meta.url).href },
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb, maxYoungGenerationSizeMb: 64 },
    });
    worker.unref();
    const slot: Slot = { worker, busy: false };
    this.slots.push(slot);
    return slot;
  }

  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.busy) ?? (this.slots.length < this.options.size ? this.spawn() : null);
      if (!slot) return;
      const pending = this.queue.shift() as Pending;
      this.start(slot, pending);
    }
  }

  private start(slot: Slot, pending: Pending): void {
    slot.busy = true;
    const id = this.nextId++;
    const { worker } = slot;
    const done = (outcome: { value: string } | { error: Error }, keep: boolean): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      slot.busy = false;
      if (!keep) this.retire(slot);
      if ('value' in outcome) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
      this.pump();
    };
    const onMessage = (reply: JobReply): void => {
      if (reply.id !== id) return;
      done(reply.ok ? { value: reply.value } : { error: new JobError(reply.error) }, true);
    };
    const onError = (error: Error): void => {
      const oom = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      done({ error: new JobError(oom ? 'the file needs more memory than the server allows' : `the reader failed (${error.message})`) }, false);
    };
    const onExit = (): void => done({ error: new JobError('the reader stopped unexpectedly') }, false);
    const timer = setTimeout(() => done({ error: new JobError('the file took too long to read') }, false), this.options.timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    const message: JobRequest = { ...pending.job, id };
    worker.postMessage(message, [message.data]);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new JobError('the gateway is shutting down'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}

/**
 * The bytes as an ArrayBuffer of their own, to transfer to the thread. A view of a larger buffer (a Node Buffer
 * may sit in the shared pool, and Buffer#slice is a view too) is copied: transferring that buffer would detach
 * memory that other Buffers use.
 */
function toArrayBuffer(data: Uint8Array): ArrayBuffer {
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer && !Buffer.isBuffer(data)) return data.buffer;
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return copy.buffer;
}
