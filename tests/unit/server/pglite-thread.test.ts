/**
 * PGlite in its own thread (src/server/db/pglite-thread.ts): the same Db as PGlite on the caller's thread (rows,
 * errors with their SQLSTATE, transactions, statements in order), and a long statement no longer holds the event
 * loop. The folder is made by a PGlite on this thread first (from the test run's template), so the thread opens an
 * existing cluster rather than running initdb.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { RequestBinder } from '../../../src/server/body/request-binding';
import { Ledger } from '../../../src/server/money/ledger';
import { createSession } from '../../../src/server/sessions/store';

let dir: string;
let db: Db;

/** How many times a 5 ms interval fires while `work` runs: none when the work holds this thread throughout. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

/** A statement that keeps PGlite busy for a few hundred milliseconds. */
const HEAVY = 'SELECT count(*)::int AS n FROM generate_series(1, 3000000) AS g WHERE g % 7 = 3';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'parley-pglite-thread-'));
  const made = await openDatabase({ kind: 'pglite', dataDir: dir });
  await made.close();
  db = await openDatabase({ kind: 'pglite', dataDir: dir, thread: true });
});

afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('PGlite in its own thread', () => {
  it('returns rows with the same types as on this thread: numbers, text, dates, bytes, JSON, NULL', async () => {
    const rows = await db.query<{ n: number; s: string; t: Date; b: Uint8Array; j: unknown; z: null }>(
      `SELECT $1::int + 1 AS n, $2::text AS s, '2026-01-02T03:04:05Z'::timestamptz AS t, $3::bytea AS b, '{"a":[1,"x"]}'::jsonb AS j, NULL AS z`,
      [41, "it's; DROP TABLE sessions; --", new Uint8Array([0, 1, 254, 255])],
    );
    expect(rows).toEqual([{ n: 42, s: "it's; DROP TABLE sessions; --", t: new Date('2026-01-02T03:04:05Z'), b: new Uint8Array([0, 1, 254, 255]), j: { a: [1, 'x'] }, z: null }]);
    // Repeated statements are prepared in the thread as they are on this one (db/pglite.ts); still the same answers.
    for (let i = 0; i < 5; i++) expect(await db.query<{ v: string }>('SELECT $1::text AS v', [`v'${i}`])).toEqual([{ v: `v'${i}` }]);
  });

  it("an error keeps its message and SQLSTATE code, which the ledger and the bindings read", async () => {
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ message: 'relation "no_such_table" does not exist', code: '42P01' });
    // A binding of a session that does not exist: the foreign key (23503) is how RequestBinder says 'no-session'.
    await expect(db.query(`INSERT INTO request_bindings (session_id, request_id, model, body_hash) VALUES ('ses_gone', 'r1', 'm', 'h')`)).rejects.toMatchObject({ code: '23503' });
    const binder = new RequestBinder(db);
    expect(await binder.bind('ses_gone', 'req-12345678', 'm', 'h')).toEqual({ kind: 'no-session' });
  });

  it('a transaction commits, and a throw in it rolls back and is rethrown as it was', async () => {
    await db.query('CREATE TABLE t_tx (x int PRIMARY KEY)');
    const n = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t_tx VALUES (1), (2)');
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t_tx'))[0]?.n;
    });
    expect(n).toBe(2);
    const boom = new Error('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t_tx VALUES (3)');
        throw boom;
      }),
    ).rejects.toBe(boom);
    // A failed statement inside rolls back the whole transaction too.
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t_tx VALUES (4)');
        await tx.query('INSERT INTO t_tx VALUES (1)');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.query('SELECT x FROM t_tx ORDER BY x')).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it('a statement from outside waits for an open transaction, as on one thread', async () => {
    await db.query('CREATE TABLE t_wait (x int)');
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const tx = db.transaction(async (q) => {
      await q.query('INSERT INTO t_wait VALUES (1)');
      await held;
      await q.query('INSERT INTO t_wait VALUES (2)');
    });
    // Asked while the transaction is open: it runs after the commit and sees both rows.
    await new Promise((r) => setTimeout(r, 50));
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t_wait');
    release();
    await tx;
    expect(await outside).toEqual([{ n: 2 }]);
  });

  it('money through the thread: a ledger credit and a charge, read back', async () => {
    const { session } = await createSession(db);
    const ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
    await ledger.credit(session.id, { key: 'thread-credit-1', usdMicro: 5_000_000n, note: 'test' });
    const charged = await ledger.charge(session.id, { key: 'thread-charge-1', usdMicro: 1_250_000n, note: 'test' });
    expect(charged.status).toBe('applied');
    expect(await ledger.balance(session.id)).toEqual({ usdMicro: 3_750_000n, nanoRaw: 0n });
    // The same key again changes nothing.
    expect((await ledger.charge(session.id, { key: 'thread-charge-1', usdMicro: 1_250_000n })).duplicate).toBe(true);
    expect((await ledger.balance(session.id)).usdMicro).toBe(3_750_000n);
  });

  it('a long statement runs beside the event loop, which it held on the same thread', async () => {
    const beside = await ticksDuring(() => db.query(HEAVY));
    const same = await openDatabase({ kind: 'memory' });
    try {
      const held = await ticksDuring(() => same.query(HEAVY));
      // On one thread the statement runs in one synchronous call: the interval gets no turn until it is over.
      expect(held).toBeLessThanOrEqual(1);
    } finally {
      await same.close();
    }
    expect(beside).toBeGreaterThanOrEqual(3);
  });

  it('after close, a call fails with a clear error instead of waiting forever (the last test: it closes the database)', async () => {
    await db.close();
    await expect(db.query('SELECT 1')).rejects.toThrow('The database is closed');
    await expect(db.transaction(() => Promise.resolve(1))).rejects.toThrow('The database is closed');
    await db.close(); // twice is fine
  });
});
