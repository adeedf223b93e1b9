/** The page side of the Python viewer with a scripted fake worker: runs, output, Stop, the time limit, crashes. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunRequest, WorkerMessage } from '../../../src/viewer/protocol';
import { PythonRunner, type RunnerState, type WorkerLike } from '../../../src/viewer/python-runner';

class FakeWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<unknown>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  readonly posted: RunRequest[] = [];
  terminated = false;
  postMessage(message: RunRequest): void {
    this.posted.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  emit(message: WorkerMessage | Record<string, unknown>): void {
    this.onmessage?.({ data: message } as MessageEvent<unknown>);
  }
}

let workers: FakeWorker[];
let runner: PythonRunner;
let states: RunnerState[];
const last = () => workers.at(-1)!;
const output: string[] = [];
const opts = (timeLimitMs = 5000) => ({ timeLimitMs, onOutput: (stream: string, text: string) => void output.push(`${stream}:${text}`) });

beforeEach(() => {
  vi.useFakeTimers();
  workers = [];
  output.length = 0;
  runner = new PythonRunner(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w;
  });
  states = [];
  runner.subscribe((s) => states.push(s));
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Python runner', () => {
  it('loads once, waits for ready before posting, then streams output and the value of the run', async () => {
    runner.warm();
    runner.warm();
    expect(workers).toHaveLength(1);
    expect(runner.getState()).toMatchObject({ phase: 'loading', busy: false });
    const done = runner.run('print(1)', opts());
    expect(last().posted).toEqual([]);
    last().emit({ type: 'ready', version: '314.0.7', ms: 900 });
    expect(last().posted).toEqual([{ type: 'run', id: 1, code: 'print(1)' }]);
    expect(runner.getState()).toMatchObject({ phase: 'ready', busy: true, version: '314.0.7', loadMs: 900 });
    last().emit({ type: 'output', id: 1, stream: 'stdout', text: '1\n' });
    last().emit({ type: 'output', id: 99, stream: 'stdout', text: 'not this run\n' });
    last().emit({ type: 'done', id: 1, ok: true, result: '42', ms: 2 });
    expect(await done).toEqual({ status: 'ok', result: '42', ms: 2 });
    expect(output).toEqual(['stdout:1\n']);
    expect(runner.getState()).toMatchObject({ phase: 'ready', busy: false });
    // Warm: the second run goes to the same worker at once.
    const again = runner.run('x', opts());
    expect(workers).toHaveLength(1);
    expect(last().posted.at(-1)).toEqual({ type: 'run', id: 2, code: 'x' });
    last().emit({ type: 'done', id: 2, ok: false, error: 'Traceback...\nNameError: x', ms: 1 });
    expect(await again).toEqual({ status: 'error', error: 'Traceback...\nNameError: x', ms: 1 });
    expect(last().terminated).toBe(false);
  });

  it('Stop ends the worker at once; the next run starts a new one', async () => {
    runner.warm();
    last().emit({ type: 'ready', version: 'v', ms: 1 });
    const first = last();
    const done = runner.run('while True: pass', opts());
    runner.stop();
    expect(await done).toEqual({ status: 'stopped' });
    expect(first.terminated).toBe(true);
    expect(runner.getState()).toMatchObject({ phase: 'idle', busy: false });
    // Late messages from the ended worker are ignored.
    first.emit({ type: 'done', id: 1, ok: true, result: null, ms: 1 });
    const next = runner.run('print(2)', opts());
    expect(workers).toHaveLength(2);
    last().emit({ type: 'ready', version: 'v', ms: 1 });
    last().emit({ type: 'done', id: 2, ok: true, result: null, ms: 1 });
    expect(await next).toMatchObject({ status: 'ok' });
  });

  it('the time limit ends the worker, counted from when the code was posted (not while Python loads)', async () => {
    runner.warm();
    const done = runner.run('while True: pass', opts(5000));
    await vi.advanceTimersByTimeAsync(60_000); // loading takes long: no limit yet
    expect(last().terminated).toBe(false);
    last().emit({ type: 'ready', version: 'v', ms: 60_000 });
    await vi.advanceTimersByTimeAsync(4999);
    expect(last().terminated).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toEqual({ status: 'timeout', limitMs: 5000 });
    expect(last().terminated).toBe(true);
  });

  it('a crash, a failed load or a broken runtime ends the run as crashed and replaces the worker', async () => {
    runner.warm();
    last().emit({ type: 'ready', version: 'v', ms: 1 });
    let done = runner.run('x = bytearray(2**40)', opts());
    last().onerror?.({ message: 'Out of memory', preventDefault: () => undefined } as unknown as ErrorEvent);
    expect(await done).toEqual({ status: 'crashed', error: 'Out of memory' });
    expect(workers[0]!.terminated).toBe(true);

    done = runner.run('print(1)', opts());
    last().emit({ type: 'loadFailed', error: 'HTTP 404' });
    expect(await done).toEqual({ status: 'crashed', error: 'Python could not start: HTTP 404' });
    expect(workers[1]!.terminated).toBe(true);

    done = runner.run('boom', opts());
    last().emit({ type: 'ready', version: 'v', ms: 1 });
    last().emit({ type: 'done', id: 3, ok: false, error: 'RuntimeError: unreachable', ms: 1, fatal: true });
    expect(await done).toEqual({ status: 'crashed', error: 'RuntimeError: unreachable' });
    expect(workers[2]!.terminated).toBe(true);
    expect(workers).toHaveLength(3);
  });

  it('ignores malformed messages, and dispose ends the worker', () => {
    runner.warm();
    last().emit({ type: 'ready' });
    last().emit({ type: 'done', id: '1', ok: true });
    expect(runner.getState().phase).toBe('loading');
    runner.dispose();
    expect(last().terminated).toBe(true);
    expect(runner.getState()).toMatchObject({ phase: 'idle', busy: false });
    expect(states.map((s) => s.phase)).toEqual(['loading', 'idle']);
  });
});
