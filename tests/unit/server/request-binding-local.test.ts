/**
 * Request bindings on the embedded database (src/server/body/request-binding.ts): decided in memory and written
 * behind, with a filter of the table's keys for the bindings made before a start; the pieces they stand on
 * (db/key-filter.ts, db/write-behind.ts); and the rule that a free reply's $0 entry never reaches the database
 * before its binding (money/free-replies.ts).
 */
import { describe, expect, it } from 'vitest';
import { memoryDatabase } from './helpers';
import { RequestBinder } from '../../../src/server/body/request-binding';
import { jsonParam } from '../../../src/server/db/json-param';
import { KeyFilter } from '../../../src/server/db/key-filter';
import type { Db, Row, SqlParam } from '../../../src/server/db/types';
import { WriteBehind } from '../../../src/server/db/write-behind';
import { FreeReplyLog } from '../../../src/server/money/free-replies';
import { createSession } from '../../../src/server/sessions/store';

const database = memoryDatabase();

/**
 * Another handle on the same database, as a restarted gateway has: its own bindings in memory, the same table.
 * Counts its statements; `refuse` fails those that match (a failing database).
 */
function handle(): { db: Db; statements: string[]; refuse: { pattern: RegExp | null } } {
  const base = database();
  const statements: string[] = [];
  const refuse: { pattern: RegExp | null } = { pattern: null };
  const db: Db = {
    kind: 'pglite',
    query: <T extends Row = Row>(sql: string, params?: readonly SqlParam[]): Promise<T[]> => {
      statements.push(sql.replace(/\s+/g, ' ').trim());
      if (refuse.pattern?.test(sql)) return Promise.reject(new Error('connection reset'));
      return base.query<T>(sql, params);
    },
    transaction: (fn) => base.transaction(fn),
    close: () => Promise.resolve(),
  };
  return { db, statements, refuse };
}

const session = async (): Promise<string> => (await createSession(database())).session.id;
const rows = async (sessionId: string): Promise<{ request_id: string; model: string }[]> =>
  database().query('SELECT request_id, model FROM request_bindings WHERE session_id = $1 ORDER BY request_id', [sessionId]);

describe('KeyFilter', () => {
  it('never says "not here" for a key it holds, and rarely "maybe" for one it does not', () => {
    const f = new KeyFilter(1 << 16);
    for (let i = 0; i < 5000; i++) f.add(`ses_a\nreq-${i}`);
    let missed = 0;
    let wrong = 0;
    for (let i = 0; i < 5000; i++) if (!f.mayHave(`ses_a\nreq-${i}`)) missed++;
    for (let i = 0; i < 5000; i++) if (f.mayHave(`ses_b\nreq-${i}`)) wrong++;
    expect(missed).toBe(0);
    // 5,000 keys in 65,536 bits with 7 probes: about 0.2% expected.
    expect(wrong).toBeLessThan(50);
    expect(f.size).toBe(5000);
    expect(() => new KeyFilter(1000)).toThrow(RangeError);
  });
});

describe('jsonParam', () => {
  it('makes every string of a batch storable, so that one odd value cannot fail the statement of the whole batch', async () => {
    const batch = [
      { k: 'nul\u0000here', n: 'lone high \ud800 end', t: 1 },
      { k: 'lone low \udc00', n: 'pair \u{1F600} and a literal \\u0000', t: 2 },
    ];
    expect(() => JSON.parse(jsonParam(batch))).not.toThrow();
    const back = await database().query<{ k: string; n: string; t: number }>(
      'SELECT k, n, t FROM jsonb_to_recordset($1::text::jsonb) AS x(k text, n text, t int) ORDER BY t',
      [jsonParam(batch)],
    );
    expect(back).toEqual([
      { k: 'nul\uFFFDhere', n: 'lone high \uFFFD end', t: 1 },
      { k: 'lone low \uFFFD', n: 'pair \u{1F600} and a literal \\u0000', t: 2 },
    ]);
    // What it replaces: JSON.stringify's own text is refused.
    await expect(database().query('SELECT count(*) FROM jsonb_to_recordset($1::text::jsonb) AS x(k text)', [JSON.stringify(batch)])).rejects.toThrow();
  });
});

describe('WriteBehind', () => {
  const opts = (log: string[] = []) => ({ name: 'test', what: 'rows', flushMs: 60_000, maxBatch: 4, log: (l: string) => log.push(l) });

  it('writes in batches of at most maxBatch, in order, a key once; drain waits for all queued before it', async () => {
    const batches: string[][] = [];
    const q = new WriteBehind<string>(async (b) => void batches.push(b), opts());
    for (const k of ['a', 'b', 'a', 'c', 'd', 'e', 'f', 'g']) q.add(k, k);
    expect(await q.drain()).toBe(true);
    expect(batches.flat()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(batches.every((b) => b.length <= 4)).toBe(true);
    expect(q.size).toBe(0);
  });

  it('what a burst queued past the batch being written is written without any further record', async () => {
    // A slow database: records keep coming while the first batch is written, then stop. What is left was written
    // only when the next record came (a quiet gateway kept it in memory, unwritten, for as long as it stayed quiet).
    const written: string[] = [];
    let release: () => void = () => {};
    let slow = true;
    const q = new WriteBehind<string>(async (b) => {
      if (slow) await new Promise<void>((r) => (release = r));
      written.push(...b);
    }, { ...opts(), flushMs: 20 });
    for (let i = 0; i < 4; i++) q.add(`k${i}`, `k${i}`); // a full batch: its write starts
    for (let i = 4; i < 14; i++) q.add(`k${i}`, `k${i}`); // queued behind it
    slow = false;
    release();
    await expect.poll(() => written.length).toBe(14);
    expect(written).toEqual(Array.from({ length: 14 }, (_, i) => `k${i}`));
    expect(q.size).toBe(0);
  });

  it('a failed write is logged and kept; a key deleted while its batch was written is not queued again', async () => {
    const log: string[] = [];
    let release: (() => void) | null = null;
    let fail = true;
    const written: string[] = [];
    const q = new WriteBehind<string>(async (b) => {
      await new Promise<void>((r) => (release = r));
      if (fail) throw new Error('disk full');
      written.push(...b);
    }, opts(log));
    q.add('x', 'x');
    q.add('y', 'y');
    const flushing = q.flush();
    expect(q.get('x')).toBe('x'); // being written: still known
    const deleted = q.delete('x');
    let deletedDone = false;
    void deleted.then(() => (deletedDone = true));
    await new Promise((r) => setImmediate(r));
    expect(deletedDone).toBe(false); // waits for the write it was in
    release!();
    expect(await flushing).toBe(false);
    await deleted;
    expect(log).toEqual(['test: writing 2 rows failed (kept for the next batch): disk full']);
    expect([...q.values()]).toEqual(['y']);
    fail = false;
    const draining = q.drain();
    await new Promise((r) => setImmediate(r));
    release!();
    expect(await draining).toBe(true);
    expect(written).toEqual(['y']);
  });
});

describe('request bindings on the embedded database', () => {
  it('a new requestId is bound without a statement; a retry, another model or another body is answered from memory', async () => {
    const { db, statements } = handle();
    const binder = new RequestBinder(db);
    expect(await binder.inMemory()).toBe(true);
    const s = await session();
    statements.length = 0;
    expect(await binder.bind(s, 'r1', 'm', 'h1')).toEqual({ kind: 'new' });
    const again = await binder.bind(s, 'r1', 'm', 'h1');
    expect(again.kind).toBe('same');
    expect(await binder.bind(s, 'r1', 'other-model', 'h1')).toEqual({ kind: 'other', differs: 'model' });
    expect(await binder.bind(s, 'r1', 'm', 'h2')).toEqual({ kind: 'other', differs: 'body' });
    expect(statements).toEqual([]);
    expect(await rows(s)).toEqual([]); // not written yet
    expect(await binder.written()).toBe(true);
    expect(await rows(s)).toEqual([{ request_id: 'r1', model: 'm' }]);
    // Written: the database answers now, the same way.
    expect(await binder.bind(s, 'r1', 'other-model', 'h1')).toEqual({ kind: 'other', differs: 'model' });
    expect((await binder.bind(s, 'r1', 'm', 'h1')).kind).toBe('same');
    expect(statements.some((q) => q.startsWith('INSERT INTO request_bindings (session_id, request_id, model, body_hash) VALUES'))).toBe(true);
  });

  it('50 parallel uses of one new requestId: one is new, the others are the same request', async () => {
    const binder = new RequestBinder(handle().db);
    await binder.inMemory();
    const s = await session();
    const all = await Promise.all(Array.from({ length: 50 }, () => binder.bind(s, 'burst', 'm', 'h')));
    expect(all.filter((r) => r.kind === 'new')).toHaveLength(1);
    expect(all.filter((r) => r.kind === 'same')).toHaveLength(49);
  });

  it('after a restart, the bindings made before it are found (across pages of the start-up read)', async () => {
    const s = await session();
    // More than one page of the read that fills the filter (5,000 rows a page).
    await database().query(
      `INSERT INTO request_bindings (session_id, request_id, model, body_hash) SELECT $1, 'old-' || i, 'm', 'h' FROM generate_series(1, 5003) AS i`,
      [s],
    );
    const { db, statements } = handle();
    const binder = new RequestBinder(db);
    expect(await binder.inMemory()).toBe(true);
    expect(statements.filter((q) => q.startsWith('SELECT session_id AS s, request_id AS r FROM request_bindings'))).toHaveLength(2);
    for (const id of ['old-1', 'old-4999', 'old-5003']) expect(await binder.bind(s, id, 'another', 'h')).toEqual({ kind: 'other', differs: 'model' });
    statements.length = 0;
    expect(await binder.bind(s, 'brand-new', 'm', 'h')).toEqual({ kind: 'new' });
    expect(statements).toEqual([]);
  });

  it('a requestId freed before its upstream can be bound again, whether or not it was written', async () => {
    const binder = new RequestBinder(handle().db);
    await binder.inMemory();
    const s = await session();
    expect((await binder.bind(s, 'refused', 'm', 'h')).kind).toBe('new');
    await binder.unbind(s, 'refused');
    expect(await binder.written()).toBe(true);
    expect(await rows(s)).toEqual([]);
    expect((await binder.bind(s, 'refused', 'other', 'h')).kind).toBe('new');
    expect(await binder.written()).toBe(true);
    await binder.unbind(s, 'refused');
    expect(await rows(s)).toEqual([]);
    expect((await binder.bind(s, 'refused', 'third', 'h')).kind).toBe('new');
  });

  it('a binding of a session deleted before it was written is dropped, and the rest of its batch is written', async () => {
    const binder = new RequestBinder(handle().db);
    await binder.inMemory();
    const kept = await session();
    const gone = await session();
    await binder.bind(kept, 'k', 'm', 'h');
    await binder.bind(gone, 'g', 'm', 'h');
    await database().query('DELETE FROM sessions WHERE id = $1', [gone]);
    expect(await binder.written()).toBe(true);
    expect(await rows(kept)).toEqual([{ request_id: 'k', model: 'm' }]);
    expect(await rows(gone)).toEqual([]);
  });

  it("a free reply's $0 entry waits while its binding cannot be written, so it is never in the ledger without it", async () => {
    const { db, refuse } = handle();
    const binder = new RequestBinder(db);
    await binder.inMemory();
    const log: string[] = [];
    const free = new FreeReplyLog(db, (l) => log.push(l), 60_000);
    free.writeAfter(() => binder.written());
    const s = await session();
    const key = `chat:${s}:free-1`;
    refuse.pattern = /INSERT INTO request_bindings/;
    expect((await binder.bind(s, 'free-1', 'free-model', 'h')).kind).toBe('new');
    free.record(s, key, 'stream-gpt free-model');
    await free.flush();
    const entries = async (): Promise<number> =>
      (await database().query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries WHERE idempotency_key = $1', [key]))[0]?.n ?? -1;
    expect(await entries()).toBe(0);
    expect(log.join('\n')).toMatch(/free replies: writing 1 \$0 entries failed \(kept for the next batch\): the requestId bindings of these replies are not written yet/);
    // A reuse under another model is still refused meanwhile (from memory).
    expect(await binder.bind(s, 'free-1', 'paid-model', 'h')).toEqual({ kind: 'other', differs: 'model' });
    refuse.pattern = null;
    await free.close();
    expect(await entries()).toBe(1);
    expect(await rows(s)).toEqual([{ request_id: 'free-1', model: 'free-model' }]);
  });
});
