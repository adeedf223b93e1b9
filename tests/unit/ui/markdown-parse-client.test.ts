/**
 * The page's side of the Markdown parse worker: one text at a time, each with a time budget; a text over its budget
 * has its worker terminated and comes back as `budget` (the view shows it as plain text), and the next text goes to
 * a fresh worker. Fake workers and fake timers: nothing here measures time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Root } from 'hast';
import { MarkdownParseClient, type ParseJob, type ParseWorkerHandle, type WorkerReply } from '../../../src/ui/markdown/parse-client';
import { markdownParseBudgetMs } from '../../../src/protocol/markdown-guard';

const TREE: Root = { type: 'root', children: [{ type: 'text', value: 'ok' }] };
const BUDGET = { baseMs: 1000, charsPerMs: 100 };

/** A fake worker: says it is ready (unless told not to), answers each job unless its text starts with 'hang'. */
class FakeWorker implements ParseWorkerHandle {
  static all: FakeWorker[] = [];
  jobs: ParseJob[] = [];
  terminated = false;
  constructor(
    private readonly onReply: (reply: WorkerReply) => void,
    readonly onFail: () => void,
    ready = true,
  ) {
    FakeWorker.all.push(this);
    if (ready) queueMicrotask(() => onReply({ ready: true }));
  }
  post(job: ParseJob): void {
    this.jobs.push(job);
    if (!job.text.startsWith('hang')) queueMicrotask(() => !this.terminated && this.onReply({ id: job.id, ok: true, tree: TREE }));
  }
  terminate(): void {
    this.terminated = true;
  }
}

const start = (onReply: (r: WorkerReply) => void, onFail: () => void) => new FakeWorker(onReply, onFail);

beforeEach(() => {
  FakeWorker.all = [];
  vi.useFakeTimers();
});
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('the Markdown parse client', () => {
  it('parses in the worker and answers with the tree', async () => {
    const client = new MarkdownParseClient(start, BUDGET);
    await expect(client.parse('# hi')).resolves.toEqual({ ok: true, tree: TREE });
    expect(FakeWorker.all).toHaveLength(1);
    client.dispose();
  });

  it('ends a worker whose text runs past its budget, answers "budget", and goes on with a fresh worker', async () => {
    const client = new MarkdownParseClient(start, BUDGET);
    const stuck = client.parse('hang');
    const next = client.parse('after');
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeWorker.all[0]!.jobs.map((j) => j.text)).toEqual(['hang']);
    // Not yet: the budget is 1 s plus 1 ms per 100 characters.
    await vi.advanceTimersByTimeAsync(markdownParseBudgetMs('hang', BUDGET) - 1);
    expect(FakeWorker.all[0]!.terminated).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(stuck).resolves.toEqual({ ok: false, reason: 'budget' });
    expect(FakeWorker.all[0]!.terminated).toBe(true);
    await expect(next).resolves.toEqual({ ok: true, tree: TREE });
    expect(FakeWorker.all).toHaveLength(2);
    expect(FakeWorker.all[1]!.jobs.map((j) => j.text)).toEqual(['after']);
    client.dispose();
  });

  it('gives a longer text a longer budget', async () => {
    const client = new MarkdownParseClient(start, BUDGET);
    // 10,000 characters: 1 s and 100 ms.
    const outcome = client.parse('hang'.padEnd(10_000, ' '));
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(BUDGET.baseMs + 50);
    expect(client.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    await expect(outcome).resolves.toEqual({ ok: false, reason: 'budget' });
    client.dispose();
  });

  it('drops a waiting text for a newer one of the same slot', async () => {
    const client = new MarkdownParseClient(start, BUDGET);
    const slot = {};
    const first = client.parse('block v1', [], slot);
    const second = client.parse('block v2', [], slot);
    await expect(first).resolves.toEqual({ ok: false, reason: 'superseded' });
    await expect(second).resolves.toEqual({ ok: true, tree: TREE });
    expect(FakeWorker.all[0]!.jobs.map((j) => j.text)).toEqual(['block v2']);
    client.dispose();
  });

  it('answers "error" when the worker dies while parsing, and goes on', async () => {
    const client = new MarkdownParseClient(start, BUDGET);
    const dying = client.parse('hang');
    const next = client.parse('after');
    await vi.advanceTimersByTimeAsync(0);
    FakeWorker.all[0]!.onFail();
    await expect(dying).resolves.toEqual({ ok: false, reason: 'error' });
    await expect(next).resolves.toEqual({ ok: true, tree: TREE });
    client.dispose();
  });

  it('answers "error" for every waiting text when the worker cannot start, and tries again on the next text', async () => {
    const broken = (onReply: (r: WorkerReply) => void, onFail: () => void) => new FakeWorker(onReply, onFail, false);
    const client = new MarkdownParseClient(broken, BUDGET);
    const a = client.parse('a');
    const b = client.parse('b');
    // Never ready: after the base budget it counts as failed.
    await vi.advanceTimersByTimeAsync(BUDGET.baseMs);
    await expect(a).resolves.toEqual({ ok: false, reason: 'error' });
    await expect(b).resolves.toEqual({ ok: false, reason: 'error' });
    expect(FakeWorker.all[0]!.terminated).toBe(true);
    const c = client.parse('c');
    expect(FakeWorker.all).toHaveLength(2);
    client.dispose();
    await expect(c).resolves.toEqual({ ok: false, reason: 'error' });
  });
});
