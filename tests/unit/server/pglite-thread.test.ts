/**
 * PGlite runs in a thread of its own (src/server/db/pglite-thread.ts): a statement no longer holds the event loop,
 * and everything the code relies on still crosses the thread: rows, bytes, errors with their SQLSTATE, transactions
 * that commit or roll back.
 */
import { describe, expect, it } from 'vitest';
import { memoryDatabase } from './helpers';

const database = memoryDatabase();

describe('PGlite in its own thread', () => {
  it('a long statement leaves the event loop free: a timer set before it runs while it runs', async () => {
    let ticked = false;
    const timer = setTimeout(() => {
      ticked = true;
    }, 1);
    try {
      // In the event loop's thread, the wasm sleep would hold the loop: the timer could only run after it.
      await database().query('SELECT pg_sleep(1)');
      expect(ticked).toBe(true);
    } finally {
      clearTimeout(timer);
    }
  });

  it('rows, bytes and an error with its SQLSTATE cross the thread', async () => {
    const db = database();
    await db.query('CREATE TABLE thread_probe (k TEXT PRIMARY KEY, b BYTEA)');
    const bytes = new Uint8Array([0, 1, 2, 255]);
    await db.query('INSERT INTO thread_probe (k, b) VALUES ($1, $2)', ['a', bytes]);
    const rows = await db.query<{ k: string; b: Uint8Array }>('SELECT k, b FROM thread_probe');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.k).toBe('a');
    expect([...(rows[0]?.b ?? [])]).toEqual([0, 1, 2, 255]);
    const dup = await db.query('INSERT INTO thread_probe (k) VALUES ($1)', ['a']).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(Error);
    expect((dup as { code?: string }).code).toBe('23505');
  });

  it('a transaction commits its statements together, and a throw inside rolls them all back', async () => {
    const db = database();
    await db.query('CREATE TABLE thread_tx (k TEXT PRIMARY KEY)');
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO thread_tx (k) VALUES ('one')");
      await tx.query("INSERT INTO thread_tx (k) VALUES ('two')");
    });
    const failed = await db
      .transaction(async (tx) => {
        await tx.query("INSERT INTO thread_tx (k) VALUES ('three')");
        throw new Error('changed my mind');
      })
      .catch((e: unknown) => e);
    expect((failed as Error).message).toBe('changed my mind');
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO thread_tx (k) VALUES ('four')");
    });
    const all = await db.query<{ k: string }>('SELECT k FROM thread_tx ORDER BY k');
    expect(all.map((r) => r.k)).toEqual(['four', 'one', 'two']);
  });
});
