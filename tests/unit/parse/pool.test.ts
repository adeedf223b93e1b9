/**
 * The parse pool (src/server/parse/pool.ts) with a stand-in thread (./test-worker.ts): budgets, recovery from a
 * dead thread, fair turns across sessions, the per-session waiting cap. No wall-clock assertion: the budgets here
 * only bound items that never end, and the fairness test checks the order in which items finish.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ParseConfig } from '../../../src/server/parse/config';
import { FairQueue } from '../../../src/server/parse/fair-queue';
import { BUSY_MESSAGE, ParsePool } from '../../../src/server/parse/pool';

const ENTRY = new URL('./test-worker.ts', import.meta.url);
const pools: ParsePool[] = [];

function pool(over: Partial<ParseConfig> = {}): ParsePool {
  const p = new ParsePool({ threads: 2, budgetMs: { page: 30_000, document: 30_000, image: 30_000, upscale: 30_000 }, memoryMb: 64, maxWaitingPerSession: 32, warmAtStart: false, ...over, entry: ENTRY });
  pools.push(p);
  return p;
}

/** A document item whose `ext` tells the stand-in thread what to do. */
const item = (p: ParsePool, owner: string, command: string, signal?: AbortSignal): Promise<string> => p.extractDocument(owner, new Uint8Array([1]), command, signal);

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('the parse pool', () => {
  it('an item past its time budget fails with a plain message; its thread is replaced and the next item is read', async () => {
    const p = pool({ budgetMs: { page: 300, document: 300, image: 300, upscale: 300 } });
    await expect(item(p, 'a', 'spin')).rejects.toMatchObject({ code: 'TIMEOUT', message: 'the file took too long to read' });
    expect(await item(p, 'a', 'echo:after the bomb')).toBe('after the bomb');
    expect(p.started).toBe(2);
  });

  it('an item that needs more memory than its thread may have fails, and the pool goes on', async () => {
    const p = pool();
    await expect(item(p, 'a', 'oom')).rejects.toMatchObject({ code: 'MEMORY', message: 'the file needs more memory than the server allows' });
    expect(await item(p, 'a', 'echo:still reading')).toBe('still reading');
  });

  it("a thread that dies mid-item fails that item only: every other item, waiting or running, is read", async () => {
    const p = pool();
    const others = ['a', 'b', 'c', 'a', 'b', 'c'].map((owner, i) => item(p, owner, `sleep:${20 * i}:${owner}${i}`));
    const crash = item(p, 'a', 'crash');
    const more = ['b', 'c'].map((owner, i) => item(p, owner, `echo:${owner}-late${i}`));
    await expect(crash).rejects.toMatchObject({ code: 'CRASHED', message: 'the reader stopped unexpectedly' });
    expect(await Promise.all(others)).toEqual(['a0', 'b1', 'c2', 'a3', 'b4', 'c5']);
    expect(await Promise.all(more)).toEqual(['b-late0', 'c-late1']);
  });

  it("one session's flood does not hold back another's small item: it finishes before the flood's third item", async () => {
    const p = pool();
    // Both threads up first. a0 and a1 take both threads and end 2.5 s apart, the rest are short: when a thread
    // frees (one may first load pdf.js at the lowest priority, for as long as a loaded machine makes it), a still has
    // an item running and b has none, so b's turn comes before a2. With equal items a0 and a1 ended together under
    // CPU hogs, and at that tie the turn went to the longest waiting, a2.
    await Promise.all([item(p, 'warm', 'echo:1'), item(p, 'warm', 'echo:2')]);
    const finished: string[] = [];
    const flood = Array.from({ length: 8 }, (_, i) => item(p, 'session-a', `sleep:${i === 0 ? 1500 : i === 1 ? 4000 : 50}:a${i}`).then((v) => void finished.push(v)));
    const small = item(p, 'session-b', 'echo:b').then((v) => void finished.push(v));
    await Promise.all([...flood, small]);
    expect(finished).toHaveLength(9);
    // A plain queue would read b ninth, after all of a's items.
    expect(finished.indexOf('b')).toBeLessThan(2);
  });

  it('a session may have only so many items waiting; past it BUSY, other sessions unaffected', async () => {
    const p = pool({ maxWaitingPerSession: 3 });
    const accepted = [0, 1, 2].map((i) => item(p, 'a', `echo:a${i}`));
    await expect(item(p, 'a', 'echo:a3')).rejects.toMatchObject({ code: 'BUSY', message: BUSY_MESSAGE });
    expect(await item(p, 'b', 'echo:b')).toBe('b');
    expect(await Promise.all(accepted)).toEqual(['a0', 'a1', 'a2']);
    expect(await item(p, 'a', 'echo:a4')).toBe('a4');
  });

  it('a reader refusal is the item\'s own failure and keeps the thread', async () => {
    const p = pool();
    await expect(item(p, 'a', 'fail:the .docx file could not be read')).rejects.toMatchObject({ code: 'FAILED', message: 'the .docx file could not be read' });
    expect(await item(p, 'a', 'echo:next')).toBe('next');
    expect(p.started).toBe(1);
  });

  it('an item given up while it waits is dropped; closing fails what is left', async () => {
    const p = pool();
    const running = [item(p, 'a', 'sleep:60000:x'), item(p, 'a', 'sleep:60000:y')];
    const gone = new AbortController();
    const waiting = item(p, 'b', 'echo:never', gone.signal);
    expect(p.waiting).toBe(3);
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(p.waiting).toBe(2);
    const outcomes = Promise.allSettled([...running, item(p, 'c', 'echo:left')]);
    await p.close();
    const codes = (await outcomes).map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : o.value));
    expect(codes).toEqual(['CLOSED', 'CLOSED', 'CLOSED']);
    await expect(item(p, 'd', 'echo:after close')).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

describe('the warm-up at the gateway start', () => {
  afterEach(() => {
    delete process.env.PARLEY_TEST_WARM_MS;
  });

  it('starts the threads and warms each of them, one at a time', async () => {
    const p = pool({ threads: 3 });
    p.warmUp();
    for (let i = 0; i < 1200 && p.warmed < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(p.warmed).toBe(3);
    expect(p.started).toBe(3);
    expect(await item(p, 'a', 'echo:warm')).toBe('warm');
  });

  it('never takes the last free thread: items are read while a warm-up goes on', async () => {
    process.env.PARLEY_TEST_WARM_MS = '60000'; // a warm-up that does not end within the test
    const p = pool({ threads: 2 });
    p.warmUp();
    for (let i = 0; i < 1200 && p.warming === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(p.warming).toBe(1);
    const pages = await Promise.all(Array.from({ length: 6 }, (_, i) => item(p, `s${i % 2}`, `sleep:20:p${i}`)));
    expect(pages).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(p.warmed).toBe(0);
    expect(p.warming).toBe(1);
  });
});

describe('a thread that reads PDFs before its other readers are loaded', () => {
  afterEach(() => {
    delete process.env.PARLEY_TEST_PDF_FIRST_MS;
  });

  it('takes a PDF at once, even one queued behind another kind; the other items wait until a thread is wholly ready', async () => {
    process.env.PARLEY_TEST_PDF_FIRST_MS = '60000'; // the other readers do not load within the test
    const p = pool({ threads: 2 });
    let other: string | null = null;
    const waiting = item(p, 'a', 'echo:other').then(
      (v) => (other = v),
      (e: unknown) => (other = (e as { code?: string }).code ?? 'error'),
    );
    expect(await item(p, 'b', 'pdf')).toBe('pdf read');
    expect(await item(p, 'b', 'pdf')).toBe('pdf read');
    expect(other).toBeNull();
    expect(p.waiting).toBe(1);
    // `ready: 'pdf'` comes with pdf.js warmed: the warm-up has nothing left to do on these threads.
    for (let i = 0; i < 1200 && p.warmed < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(p.warmed).toBe(2);
    expect(other).toBeNull();
    await p.close();
    await waiting;
    expect(other).toBe('CLOSED');
  });

  it('gives a thread the other items once it says it is wholly ready', async () => {
    process.env.PARLEY_TEST_PDF_FIRST_MS = '300';
    const p = pool({ threads: 2 });
    expect(await item(p, 'a', 'echo:other')).toBe('other');
  });
});

describe('FairQueue', () => {
  it('with a filter, takes only an owner whose first item fits, in the same fair order', () => {
    const q = new FairQueue<string>();
    q.push('a', 'page a1');
    q.push('a', 'pdf a2');
    q.push('b', 'pdf b1');
    q.push('c', 'pdf c1');
    const fits = (x: string): boolean => x.startsWith('pdf');
    expect(q.take(() => 0, fits)?.item).toBe('pdf b1');
    expect(q.take((o) => (o === 'b' ? 1 : 0), fits)?.item).toBe('pdf c1');
    expect(q.take(() => 0, fits)).toBeNull();
    expect(q.take(() => 0)?.item).toBe('page a1');
    expect(q.take(() => 0, fits)?.item).toBe('pdf a2');
  });

  it('gives the next turn to the owner with the fewest items running, then to the longest waiting', () => {
    const q = new FairQueue<string>();
    for (const x of ['a1', 'a2', 'a3']) q.push('a', x);
    q.push('b', 'b1');
    q.push('c', 'c1');
    const running = new Map<string, number>();
    const take = (): string | undefined => {
      const next = q.take((o) => running.get(o) ?? 0);
      if (next) running.set(next.owner, (running.get(next.owner) ?? 0) + 1);
      return next?.item;
    };
    expect([take(), take(), take()]).toEqual(['a1', 'b1', 'c1']);
    expect(q.waiting('a')).toBe(2);
    running.set('b', 0);
    q.push('b', 'b2');
    // b has nothing running now, a has one: b goes first although a2 waited longer.
    expect(take()).toBe('b2');
    expect([take(), take(), take()]).toEqual(['a2', 'a3', undefined]);
    expect(q.size).toBe(0);
  });
});
