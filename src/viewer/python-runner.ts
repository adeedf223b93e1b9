/**
 * The page's side of the code viewer's Python: owns the worker (./python-worker.ts), runs one program at a time,
 * and stops runaway code. Stop and the time limit terminate the worker: the app is not cross-origin isolated, so
 * Pyodide's SharedArrayBuffer interrupt is not available, and terminating stops anything, a `while True: pass` or
 * a loop inside C, at once. The next run starts a new worker (Pyodide loads again, from the browser's cache).
 * A worker that failed to load, crashed, or whose runtime broke (a `fatal` done) is replaced the same way.
 */
import { isWorkerMessage, type OutputStream, type RunRequest, type WorkerMessage } from './protocol';

/** What the runner needs of a Worker (tests pass a fake). */
export interface WorkerLike {
  postMessage(message: RunRequest): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<unknown>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}

export type RunOutcome =
  | { status: 'ok'; result: string | null; ms: number }
  | { status: 'error'; error: string; ms: number }
  | { status: 'stopped' }
  | { status: 'timeout'; limitMs: number }
  | { status: 'crashed'; error: string };

/** The worker: none, loading Pyodide, or ready. */
export type RunnerPhase = 'idle' | 'loading' | 'ready';
export interface RunnerState {
  phase: RunnerPhase;
  /** A run is in progress (waiting for Pyodide to load, or executing). */
  busy: boolean;
  /** Pyodide's version once loaded. */
  version: string | null;
  /** How long the last load took (ms), as the worker measured it. */
  loadMs: number | null;
}

export interface RunOptions {
  timeLimitMs: number;
  onOutput(stream: OutputStream, text: string): void;
}

/** Time limits the viewer offers (ms); the default is the second. */
export const TIME_LIMITS_MS = [5_000, 30_000, 60_000, 300_000] as const;
export const DEFAULT_TIME_LIMIT_MS = 30_000;

interface Running {
  id: number;
  options: RunOptions;
  resolve(outcome: RunOutcome): void;
  timer: ReturnType<typeof setTimeout> | null;
}

export class PythonRunner {
  private worker: WorkerLike | null = null;
  private ready = false;
  private state: RunnerState = { phase: 'idle', busy: false, version: null, loadMs: null };
  private readonly listeners = new Set<(s: RunnerState) => void>();
  private running: Running | null = null;
  /** A run asked for before the worker was ready: posted on 'ready'. */
  private waiting: { code: string } | null = null;
  private nextId = 1;

  constructor(private readonly createWorker: () => WorkerLike) {}

  getState(): RunnerState {
    return this.state;
  }

  subscribe(listener: (s: RunnerState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the worker and loads Pyodide, if not done yet (the viewer calls it when it opens on Python). */
  warm(): void {
    if (this.worker !== null) return;
    const worker = this.createWorker();
    this.worker = worker;
    this.ready = false;
    worker.onmessage = (event) => {
      if (worker === this.worker && isWorkerMessage(event.data)) this.receive(event.data);
    };
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      event.preventDefault?.();
      const message: unknown = event.message;
      this.fail(typeof message === 'string' && message !== '' ? message : 'The Python worker stopped unexpectedly.');
    };
    this.setState({ phase: 'loading' });
  }

  /** Runs `code` (one run at a time: a run started while another runs stops the other first). */
  run(code: string, options: RunOptions): Promise<RunOutcome> {
    if (this.running) this.finish({ status: 'stopped' }, true);
    this.warm();
    return new Promise<RunOutcome>((resolve) => {
      this.running = { id: this.nextId++, options, resolve, timer: null };
      this.setState({ busy: true });
      if (this.ready) this.post(code);
      else this.waiting = { code };
    });
  }

  /** Stops the running program by ending its worker. Nothing runs: nothing happens. */
  stop(): void {
    if (this.running) this.finish({ status: 'stopped' }, true);
  }

  /** Ends the worker (the viewer closed); a later run starts a new one. */
  dispose(): void {
    if (this.running) this.finish({ status: 'stopped' }, true);
    this.kill();
    this.setState({ phase: 'idle' });
  }

  private post(code: string): void {
    const run = this.running;
    if (!run || !this.worker) return;
    run.timer = setTimeout(() => this.finish({ status: 'timeout', limitMs: run.options.timeLimitMs }, true), run.options.timeLimitMs);
    this.worker.postMessage({ type: 'run', id: run.id, code });
  }

  private receive(message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.setState({ phase: 'ready', version: message.version, loadMs: message.ms });
        if (this.waiting) {
          const { code } = this.waiting;
          this.waiting = null;
          this.post(code);
        }
        return;
      case 'loadFailed':
        this.fail(`Python could not start: ${message.error}`);
        return;
      case 'output':
        if (this.running?.id === message.id) this.running.options.onOutput(message.stream, message.text);
        return;
      case 'done':
        if (this.running?.id !== message.id) return;
        if (message.ok) this.finish({ status: 'ok', result: message.result, ms: message.ms }, false);
        else if (message.fatal) this.finish({ status: 'crashed', error: message.error }, true);
        else this.finish({ status: 'error', error: message.error, ms: message.ms }, false);
        return;
    }
  }

  /** The worker is unusable: end it; a run in progress ends as crashed. */
  private fail(error: string): void {
    this.kill();
    if (this.running) this.finish({ status: 'crashed', error }, false);
    else this.setState({ phase: 'idle' });
  }

  private finish(outcome: RunOutcome, killWorker: boolean): void {
    const run = this.running;
    if (!run) return;
    if (run.timer !== null) clearTimeout(run.timer);
    this.running = null;
    this.waiting = null;
    if (killWorker) this.kill();
    this.setState({ phase: this.worker === null ? 'idle' : this.ready ? 'ready' : 'loading', busy: false });
    run.resolve(outcome);
  }

  private kill(): void {
    if (!this.worker) return;
    const w = this.worker;
    this.worker = null;
    this.ready = false;
    w.onmessage = null;
    w.onerror = null;
    w.terminate();
  }

  private setState(change: Partial<RunnerState>): void {
    this.state = { ...this.state, ...change };
    for (const l of this.listeners) l(this.state);
  }
}
