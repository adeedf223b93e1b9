/**
 * The parse pool: a few worker threads that read everything an outsider supplies (scraped pages, uploaded
 * documents, images described offline), so that the gateway's event loop never waits on a parser (docs/gateway.md,
 * "Security and limits").
 *
 *  - Budgets per item: a wall-clock budget by kind, counted from the moment a thread starts the item (a thread that
 *    overruns is terminated and replaced), and a heap limit per thread (resourceLimits: an item that needs more
 *    kills only its thread, which is replaced). Past a budget the item fails with a plain message.
 *  - Fair turns (./fair-queue.ts): waiting items are queued per session; a free thread takes the next item of the
 *    session with the fewest items running, so one session flooding the pool delays another's item by at most
 *    about one item's budget. A session may have at most `maxWaitingPerSession` items waiting.
 *  - A thread that crashes fails only the item it was reading; the waiting items go on in the other threads and
 *    in its replacement.
 *
 * Threads are started when work is on its way (`warm`) or arrives (loading the readers takes a second or more; an
 * item's budget starts only once its thread is ready) and are unref'd, so an idle pool never keeps the process
 * alive. The gateway starts them at its own start (`warmUp`). A real thread (./worker.ts) says first that it reads
 * PDFs (`ready: 'pdf'`, pdf.js loaded and warmed) and then that its other readers are loaded (`ready: true`); until
 * then it is given only PDFs, so that the first PDF after a start does not wait for officeparser and the rest. A
 * thread that does not warm pdf.js itself (a test's entry) is asked to, one at a time, at the lowest priority: only
 * an idle thread warms, only when no item waits, and never the last thread not warming, so a page or a file never
 * waits behind a warm-up. A PDF goes to a warmed thread when one is free.
 */
import { Worker } from 'node:worker_threads';
import type { ExtractedPage } from './readers/page';
import type { FetchedPage } from '../net/fetch';
import type { ParseConfig } from './config';
import { FairQueue } from './fair-queue';
import type { UpscaleFactor } from '../../protocol/image-rules';
import { ownBuffer, transferList, type ParseJob, type ParseJobKind, type ParseValue, type WorkerReply, type WorkerRequest } from './jobs';

export type ParseErrorCode =
  /** The reader itself refused the item (its message says why). */
  | 'FAILED'
  | 'TIMEOUT'
  | 'MEMORY'
  /** The thread died while reading the item. */
  | 'CRASHED'
  /** The session already has `maxWaitingPerSession` items waiting. */
  | 'BUSY'
  /** The caller gave up before the item started. */
  | 'CANCELLED'
  | 'CLOSED';

export class ParseError extends Error {
  override name = 'ParseError';
  constructor(
    readonly code: ParseErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Plain messages by kind of item (a document's reason is shown after 'Server processing failed: '). */
const MESSAGES: Record<ParseJobKind, Record<'TIMEOUT' | 'MEMORY' | 'CRASHED', string>> = {
  page: {
    TIMEOUT: 'The page took too long to read',
    MEMORY: 'The page needs more memory to read than the server allows',
    CRASHED: 'The page could not be read: the reader stopped unexpectedly',
  },
  document: {
    TIMEOUT: 'the file took too long to read',
    MEMORY: 'the file needs more memory than the server allows',
    CRASHED: 'the reader stopped unexpectedly',
  },
  upscale: {
    TIMEOUT: 'The image took too long to upscale',
    MEMORY: 'The image needs more memory to upscale than the server allows',
    CRASHED: 'The image could not be upscaled: the reader stopped unexpectedly',
  },
  image: {
    TIMEOUT: 'The image took too long to read',
    MEMORY: 'The image needs more memory to read than the server allows',
    CRASHED: 'The image could not be read: the reader stopped unexpectedly',
  },
};
export const BUSY_MESSAGE = 'Too many pages and files are waiting to be read for this session; try again in a moment';
const CLOSED_MESSAGE = 'The gateway is shutting down';

export interface ParsePoolOptions extends ParseConfig {
  /** The thread's module; tests substitute their own. Default ./worker.ts. */
  entry?: URL;
}

interface Task {
  owner: string;
  job: ParseJob;
  resolve: (value: unknown) => void;
  reject: (error: ParseError) => void;
  signal?: AbortSignal | undefined;
  onAbort?: () => void;
}

interface Thread {
  worker: Worker;
  /** Loading its readers; `'pdf'`: it reads PDFs already (./worker.ts), the other readers still loading; ready. */
  ready: false | 'pdf' | true;
  task: { id: number; task: Task; timer: NodeJS.Timeout } | null;
  /** Its pdf.js: not loaded, loading (the thread is busy until it says `warmed`), loaded. */
  pdf: 'cold' | 'warming' | 'warm';
  warmTimer?: NodeJS.Timeout;
}

/** A warm-up over this long ends its thread (it is replaced); after three such, the pool stops warming. */
const WARM_BUDGET_MS = 60_000;

const isPdf = (task: Task): boolean => task.job.kind === 'document' && task.job.ext === 'pdf';

export class ParsePool {
  private readonly threads: Thread[] = [];
  private readonly queue = new FairQueue<Task>();
  private readonly running = new Map<string, number>();
  private nextId = 1;
  private closed = false;
  /** Whether idle threads load pdf.js ahead of a first PDF (`warmUp`). */
  private warmWanted = false;
  private warmFailures = 0;
  /** Threads started (replacements included), for tests and logs. */
  started = 0;
  /** Warm-ups finished (pdf.js loaded on a thread), for tests and logs. */
  warmed = 0;

  constructor(
    private readonly options: ParsePoolOptions,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** A fetched page's readable title and text. */
  readPage(owner: string, page: FetchedPage, signal?: AbortSignal): Promise<ExtractedPage> {
    const job: ParseJob = { kind: 'page', url: page.url, pageKind: page.kind, charset: page.charset, body: ownBuffer(page.body), truncated: page.truncated };
    return this.run(owner, job, signal) as Promise<ParseValue['page']>;
  }

  /** A document's text. */
  extractDocument(owner: string, data: Uint8Array, ext: string, signal?: AbortSignal): Promise<string> {
    return this.run(owner, { kind: 'document', ext, data: ownBuffer(data) }, signal) as Promise<ParseValue['document']>;
  }

  /** The offline description of an image. */
  describeImage(owner: string, data: Uint8Array, signal?: AbortSignal): Promise<string> {
    return this.run(owner, { kind: 'image', data: ownBuffer(data) }, signal) as Promise<ParseValue['image']>;
  }

  /** The offline Upscaler: the PNG of the image `factor` times larger (Lanczos-3). */
  upscaleImage(owner: string, data: Uint8Array, factor: UpscaleFactor, signal?: AbortSignal): Promise<Uint8Array> {
    return this.run(owner, { kind: 'upscale', data: ownBuffer(data), factor }, signal) as Promise<ParseValue['upscale']>;
  }

  /**
   * Starts the threads now, when an item is on its way (a page being fetched, a file being uploaded): loading the
   * readers takes a thread a second or more, which then passes while the bytes travel.
   */
  warm(): void {
    while (!this.closed && this.threads.length < this.options.threads) this.spawn();
  }

  /**
   * At the gateway's start: starts the threads, then has them load pdf.js one at a time, whenever a thread is idle
   * and nothing waits, so that the first PDF uploaded is read by a warm thread. Replacement threads warm too.
   */
  warmUp(): void {
    this.warmWanted = true;
    this.warm();
  }

  /** Threads loading pdf.js now (at most one), for tests. */
  get warming(): number {
    return this.threads.filter((t) => t.pdf === 'warming').length;
  }

  /** Items waiting for a thread (all sessions). */
  get waiting(): number {
    return this.queue.size;
  }

  private run(owner: string, job: ParseJob, signal?: AbortSignal): Promise<unknown> {
    if (this.closed) return Promise.reject(new ParseError('CLOSED', CLOSED_MESSAGE));
    if (signal?.aborted) return Promise.reject(new ParseError('CANCELLED', 'Cancelled'));
    if (this.queue.waiting(owner) >= this.options.maxWaitingPerSession) return Promise.reject(new ParseError('BUSY', BUSY_MESSAGE));
    return new Promise((resolve, reject) => {
      const task: Task = { owner, job, resolve, reject, signal };
      if (signal) {
        task.onAbort = () => {
          if (this.queue.remove(owner, task)) reject(new ParseError('CANCELLED', 'Cancelled'));
        };
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.queue.push(owner, task);
      this.pump();
    });
  }

  /** Starts waiting items on ready threads, and starts threads while items wait and there is room. */
  private pump(): void {
    while (this.queue.size > 0) {
      const idle = this.threads.filter((t) => t.ready !== false && t.task === null && t.pdf !== 'warming');
      if (idle.length === 0) break;
      // A thread that reads only PDFs so far takes the next PDF (in the same fair order among the sessions').
      const onlyPdfs = !idle.some((t) => t.ready === true);
      const next = this.queue.take((owner) => this.running.get(owner) ?? 0, onlyPdfs ? isPdf : undefined);
      if (!next) break;
      // A PDF to a thread with pdf.js loaded; anything else to one without, keeping the warm ones for PDFs.
      const pdf = isPdf(next.item);
      const fit = pdf ? idle : idle.filter((t) => t.ready === true);
      this.start(fit.find((t) => (t.pdf === 'warm') === pdf) ?? (fit[0] as Thread), next.item);
    }
    const starting = this.threads.filter((t) => t.ready !== true).length;
    const wanted = Math.min(this.options.threads - this.threads.length, this.queue.size - starting);
    for (let i = 0; i < wanted; i++) this.spawn();
    this.warmNext();
  }

  /** Lowest priority: one idle cold thread loads pdf.js, when nothing waits and another thread stays free to read. */
  private warmNext(): void {
    if (!this.warmWanted || this.closed || this.queue.size > 0 || this.warmFailures >= 3) return;
    if (this.threads.some((t) => t.pdf === 'warming')) return;
    const thread = this.threads.find((t) => t.ready === true && t.task === null && t.pdf === 'cold');
    if (!thread || !this.threads.some((t) => t !== thread)) return;
    thread.pdf = 'warming';
    thread.warmTimer = setTimeout(() => this.lose(thread, 'CRASHED', `warm-up over ${WARM_BUDGET_MS} ms`), WARM_BUDGET_MS);
    thread.worker.postMessage({ warm: true } satisfies WorkerRequest);
  }

  private spawn(): void {
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { entry: (this.options.entry ?? new URL('./worker.ts', import.meta.url)).href },
      // Not the gateway's own flags: under `tsx` they load tsx's hooks into the thread, which then passed pdf.js
      // through them (seconds) and had every module go through two chains of hooks. ./worker-boot.mjs registers tsx
      // itself, after loading pdf.js natively.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb, maxYoungGenerationSizeMb: 64 },
    });
    worker.unref();
    this.started++;
    const thread: Thread = { worker, ready: false, task: null, pdf: 'cold' };
    this.threads.push(thread);
    worker.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        // `'pdf'` comes with pdf.js warmed by the thread itself (./worker.ts).
        if (reply.ready === 'pdf' && thread.pdf === 'cold') {
          thread.pdf = 'warm';
          this.warmed++;
        }
        thread.ready = reply.ready;
        this.pump();
        return;
      }
      if ('warmed' in reply) {
        clearTimeout(thread.warmTimer);
        thread.pdf = 'warm';
        this.warmed++;
        this.pump();
        return;
      }
      const current = thread.task;
      if (!current || current.id !== reply.id) return;
      if (reply.ok) this.finish(thread, { value: reply.value }, true);
      else this.finish(thread, { error: new ParseError('FAILED', reply.error) }, true);
    });
    worker.on('error', (error: Error) => {
      const oom = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.lose(thread, oom ? 'MEMORY' : 'CRASHED', error.message);
    });
    worker.on('exit', (code) => this.lose(thread, 'CRASHED', `exit code ${code}`));
  }

  private start(thread: Thread, task: Task): void {
    if (task.signal && task.onAbort) task.signal.removeEventListener('abort', task.onAbort);
    const id = this.nextId++;
    const budget = this.options.budgetMs[task.job.kind];
    const timer = setTimeout(() => this.lose(thread, 'TIMEOUT', `over its ${budget} ms budget`), budget);
    thread.task = { id, task, timer };
    this.running.set(task.owner, (this.running.get(task.owner) ?? 0) + 1);
    const request: WorkerRequest = { id, job: task.job };
    thread.worker.postMessage(request, transferList(task.job));
  }

  /** The thread's item is done (or failed); a thread kept goes back to work. */
  private finish(thread: Thread, outcome: { value: unknown } | { error: ParseError }, keep: boolean): void {
    const current = thread.task;
    thread.task = null;
    if (!keep) this.retire(thread);
    if (current) {
      clearTimeout(current.timer);
      const left = (this.running.get(current.task.owner) ?? 1) - 1;
      if (left > 0) this.running.set(current.task.owner, left);
      else this.running.delete(current.task.owner);
      if ('value' in outcome) current.task.resolve(outcome.value);
      else current.task.reject(outcome.error);
    }
    if (!this.closed) this.pump();
  }

  /** The thread is gone or must go (timeout, memory, crash): its item fails, the thread is replaced on demand. */
  private lose(thread: Thread, code: 'TIMEOUT' | 'MEMORY' | 'CRASHED', detail: string): void {
    if (!this.threads.includes(thread)) return;
    if (thread.pdf === 'warming') this.warmFailures++;
    const kind = thread.task?.task.job.kind;
    if (kind && !this.closed) this.log(`parse pool: a ${kind} item failed (${code}: ${detail}); the thread is replaced`);
    const error = this.closed ? new ParseError('CLOSED', CLOSED_MESSAGE) : new ParseError(code, kind ? MESSAGES[kind][code] : detail);
    if (thread.ready !== true && !thread.task && !this.closed) {
      // The thread could not even start (a broken install): starting another would fail the same way, for ever.
      this.log(`parse pool: a thread could not start (${detail})`);
      for (const task of this.queue.drain()) this.settle(task, new ParseError('CRASHED', 'The server could not start its reader'));
    }
    this.finish(thread, { error }, false);
  }

  /** Rejects a task that never started. */
  private settle(task: Task, error: ParseError): void {
    if (task.signal && task.onAbort) task.signal.removeEventListener('abort', task.onAbort);
    task.reject(error);
  }

  private retire(thread: Thread): void {
    clearTimeout(thread.warmTimer);
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
    void thread.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.drain()) this.settle(task, new ParseError('CLOSED', CLOSED_MESSAGE));
    const threads = [...this.threads];
    for (const thread of threads) this.lose(thread, 'CRASHED', 'closing');
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}
