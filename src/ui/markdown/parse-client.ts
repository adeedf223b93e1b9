/**
 * The page's side of the Markdown parse worker (./parse-worker.ts): texts go to the worker one at a time, and each
 * has a time budget (`markdownParseBudgetMs`: 1.5 s, and 1 ms more per 250 characters). A text still parsing when its budget runs out has its worker terminated (a parse cannot be
 * interrupted any other way) and comes back as `budget`: the view shows it as plain text with a note, and the next
 * text goes to a fresh worker. So no Markdown, however it was built, holds the page's thread or the worker for
 * longer than the budget.
 *
 * A caller that parses the same place again and again (the growing last block of a streaming reply) names it with
 * a `slot`: a text still waiting in the queue for that slot is dropped for the newer one (`superseded`).
 */
import type { Root } from 'hast';
import { MARKDOWN_PARSE_BUDGET, markdownParseBudgetMs } from '../../protocol/markdown-guard';

export interface ParseJob {
  id: number;
  text: string;
  hrefs: readonly (string | undefined)[];
}

export type WorkerReply = { ready: true } | { id: number; ok: true; tree: Root } | { id: number; ok: false };

export type ParseOutcome = { ok: true; tree: Root } | { ok: false; reason: 'budget' | 'error' | 'superseded' };

/** A started worker, as the client drives it. */
export interface ParseWorkerHandle {
  post(job: ParseJob): void;
  terminate(): void;
}

/** Starts a worker that calls `onReply` with each reply and `onFail` when it cannot start or dies. */
export type StartParseWorker = (onReply: (reply: WorkerReply) => void, onFail: () => void) => ParseWorkerHandle;

interface Pending {
  job: ParseJob;
  slot: object | undefined;
  resolve: (outcome: ParseOutcome) => void;
}

export class MarkdownParseClient {
  private readonly queue: Pending[] = [];
  private current: Pending | null = null;
  private worker: ParseWorkerHandle | null = null;
  private ready = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private nextId = 1;
  /** Workers started so far (a test reads it). */
  started = 0;

  constructor(
    private readonly start: StartParseWorker,
    private readonly budget: { baseMs: number; charsPerMs: number } = MARKDOWN_PARSE_BUDGET,
  ) {}

  /** Parses `text` in the worker. Never rejects. */
  parse(text: string, hrefs: readonly (string | undefined)[] = [], slot?: object): Promise<ParseOutcome> {
    return new Promise((resolve) => {
      if (slot !== undefined) {
        const waiting = this.queue.findIndex((p) => p.slot === slot);
        if (waiting !== -1) this.queue.splice(waiting, 1)[0]?.resolve({ ok: false, reason: 'superseded' });
      }
      this.queue.push({ job: { id: this.nextId++, text, hrefs: [...hrefs] }, slot, resolve });
      this.pump();
    });
  }

  /** Texts waiting or parsing. */
  get pending(): number {
    return this.queue.length + (this.current ? 1 : 0);
  }

  /** Ends the worker; texts waiting or parsing come back as `error`. */
  dispose(): void {
    this.stopWorker();
    const all = this.current ? [this.current, ...this.queue] : [...this.queue];
    this.current = null;
    this.queue.length = 0;
    for (const p of all) p.resolve({ ok: false, reason: 'error' });
  }

  private pump(): void {
    if (this.current !== null || this.queue.length === 0) return;
    if (this.worker === null) {
      this.ready = false;
      this.started++;
      this.worker = this.start(
        (reply) => this.onReply(reply),
        () => this.onFail(),
      );
      // A worker that never says it is ready counts as one that failed.
      this.arm(this.budget.baseMs, () => this.onFail());
      return;
    }
    if (!this.ready) return;
    const next = this.queue.shift() as Pending;
    this.current = next;
    this.worker.post(next.job);
    this.arm(markdownParseBudgetMs(next.job.text, this.budget), () => this.onBudget());
  }

  private arm(ms: number, fire: () => void): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timer = null;
      fire();
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private stopWorker(): void {
    this.disarm();
    this.worker?.terminate();
    this.worker = null;
    this.ready = false;
  }

  private onReply(reply: WorkerReply): void {
    if ('ready' in reply) {
      this.disarm();
      this.ready = true;
      this.pump();
      return;
    }
    const current = this.current;
    if (current === null || reply.id !== current.job.id) return;
    this.disarm();
    this.current = null;
    current.resolve(reply.ok ? { ok: true, tree: reply.tree } : { ok: false, reason: 'error' });
    this.pump();
  }

  /** The text in the worker ran out of time: end the worker, answer `budget`, go on with a new worker. */
  private onBudget(): void {
    const current = this.current;
    this.current = null;
    this.stopWorker();
    current?.resolve({ ok: false, reason: 'budget' });
    this.pump();
  }

  /**
   * The worker died or never started. The text it was parsing comes back as `error`; if it had not even started,
   * so do the texts waiting (a worker that cannot load would fail them all), and the next `parse` tries again.
   */
  private onFail(): void {
    const current = this.current;
    const wasReady = this.ready;
    this.current = null;
    this.stopWorker();
    if (current) current.resolve({ ok: false, reason: 'error' });
    if (!wasReady) for (const p of this.queue.splice(0)) p.resolve({ ok: false, reason: 'error' });
    this.pump();
  }
}

/** The browser's worker (a module worker, its own chunk: the parser and KaTeX load there, not with the page). */
export const startBrowserParseWorker: StartParseWorker = (onReply, onFail) => {
  const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), { type: 'module', name: 'parley-markdown' });
  worker.onmessage = (event: MessageEvent<WorkerReply>) => onReply(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    onFail();
  };
  worker.onmessageerror = () => onFail();
  return {
    post: (job) => worker.postMessage(job),
    terminate: () => worker.terminate(),
  };
};
