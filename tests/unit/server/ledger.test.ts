import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger, LedgerInputError, UnknownSessionError } from '../../../src/server/money/ledger';
import { createSession } from '../../../src/server/sessions/store';
import { migrate, MIGRATIONS } from '../../../src/server/db/migrations';

let db: Db;
let ledger: Ledger;

beforeAll(async () => {
  db = await openDatabase({ kind: 'memory' });
  ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n }); // 1 USD per XNO
});
afterAll(async () => {
  await db.close();
});

async function sessionWith(usdMicro: bigint, nanoRaw = 0n): Promise<string> {
  const { session } = await createSession(db);
  if (usdMicro > 0n || nanoRaw > 0n) {
    await ledger.credit(session.id, { key: `seed:${session.id}`, usdMicro, nanoRaw });
  }
  return session.id;
}

describe('migrations', () => {
  it('are numbered from 1 by 1 and tracked, and re-running applies nothing', async () => {
    MIGRATIONS.forEach((m, i) => expect(m.id).toBe(i + 1));
    const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.id));
    expect(await migrate(db)).toEqual([]);
  });
});

describe('ledger: 100 concurrent charges', () => {
  it('never goes below zero; final = initial - sum of successful charges; duplicate keys applied once', async () => {
    const initial = 1_000_000n; // $1.000000
    const id = await sessionWith(initial);
    const amounts = Array.from({ length: 100 }, (_, i) => 10_000n + BigInt(i) * 373n); // sum 2,846,350 > initial
    const calls = amounts.map((usdMicro, i) => ledger.charge(id, { key: `race:${id}:${i}`, usdMicro }));
    // 20 duplicate submissions of keys already in flight.
    const dups = Array.from({ length: 20 }, (_, j) => ledger.charge(id, { key: `race:${id}:${j * 5}`, usdMicro: amounts[j * 5] as bigint }));
    const results = await Promise.all([...calls, ...dups]);

    const firsts = results.filter((r) => !r.duplicate);
    expect(firsts).toHaveLength(100);
    expect(results.filter((r) => r.duplicate)).toHaveLength(20);
    const applied = firsts.filter((r) => r.status === 'applied');
    const rejected = firsts.filter((r) => r.status === 'insufficient');
    expect(applied.length).toBeGreaterThan(0);
    expect(rejected.length).toBeGreaterThan(0);
    expect(applied.length + rejected.length).toBe(100);
    for (const r of rejected) expect(r.chargedUsdMicro).toBe(0n);
    for (const r of results) expect(r.balance.usdMicro >= 0n).toBe(true);

    const charged = applied.reduce((s, r) => s + r.chargedUsdMicro, 0n);
    const bal = await ledger.balance(id);
    expect(bal.usdMicro).toBe(initial - charged);
    expect(bal.usdMicro >= 0n).toBe(true);
    // Nothing that was left would have covered any rejected charge at the time: the leftover is below the smallest rejected amount.
    const smallestRejected = rejected.reduce((m, r) => (r.requestedUsdMicro < m ? r.requestedUsdMicro : m), 10n ** 18n);
    expect(bal.usdMicro < smallestRejected).toBe(true);

    // The ledger agrees with the balance: one entry per key, applied amounts sum to the charge.
    const rows = await db.query<{ n: string; s: string }>(
      `SELECT count(*)::text AS n, coalesce(sum(applied_usd_micro), 0)::text AS s FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`,
      [id],
    );
    expect(rows[0]).toEqual({ n: '100', s: charged.toString() });
    // A duplicate reports the same outcome as the first application of its key.
    for (let j = 0; j < 20; j++) {
      const dup = results[100 + j];
      const first = results[j * 5];
      expect(dup?.status).toBe(first?.status);
      expect(dup?.chargedUsdMicro).toBe(first?.chargedUsdMicro);
    }
  });

  it('100 concurrent charges that exactly exhaust the balance all succeed, and the next one fails', async () => {
    const id = await sessionWith(1_000_000n);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => ledger.charge(id, { key: `exact:${id}:${i}`, usdMicro: 10_000n })));
    expect(results.every((r) => r.status === 'applied' && r.source === 'USD')).toBe(true);
    expect((await ledger.balance(id)).usdMicro).toBe(0n);
    const extra = await ledger.charge(id, { key: `exact:${id}:extra`, usdMicro: 1n });
    expect(extra.status).toBe('insufficient');
    expect((await ledger.balance(id)).usdMicro).toBe(0n);
  });
});

describe('ledger: charge rules', () => {
  it('same key twice: applied once, second returns the first result', async () => {
    const id = await sessionWith(50_000n);
    const a = await ledger.charge(id, { key: `k:${id}`, usdMicro: 7_500n });
    const b = await ledger.charge(id, { key: `k:${id}`, usdMicro: 7_500n });
    expect(a).toMatchObject({ status: 'applied', duplicate: false, chargedUsdMicro: 7_500n });
    expect(b).toMatchObject({ status: 'applied', duplicate: true, chargedUsdMicro: 7_500n, entryId: a.entryId });
    expect((await ledger.balance(id)).usdMicro).toBe(42_500n);
  });

  it('falls back to nano at the configured price when USD does not cover', async () => {
    const id = await sessionWith(1_000n, 10n ** 30n); // $0.001 and 1 XNO
    const r = await ledger.charge(id, { key: `n:${id}`, usdMicro: 7_500n });
    expect(r).toMatchObject({ status: 'applied', source: 'nano', chargedUsdMicro: 0n, chargedNanoRaw: 75n * 10n ** 26n });
    expect(await ledger.balance(id)).toEqual({ usdMicro: 1_000n, nanoRaw: 10n ** 30n - 75n * 10n ** 26n });

    const atTwo = new Ledger(db, { nanoPriceUsdMicro: 2_000_000n }); // 2 USD per XNO: half the raw
    const r2 = await atTwo.charge(id, { key: `n2:${id}`, usdMicro: 7_500n });
    expect(r2.chargedNanoRaw).toBe(375n * 10n ** 25n);
  });

  it('a charge neither balance covers alone takes nothing (never a part of USD and a part of nano)', async () => {
    const id = await sessionWith(1_000n, 2n * 10n ** 27n); // $0.001 and 0.002 XNO (= $0.002 at price 1)
    const rej = await ledger.charge(id, { key: `r:${id}`, usdMicro: 2_500n });
    expect(rej).toMatchObject({ status: 'insufficient', source: 'none', chargedUsdMicro: 0n, chargedNanoRaw: 0n });
    expect(await ledger.balance(id)).toEqual({ usdMicro: 1_000n, nanoRaw: 2n * 10n ** 27n });
  });

  it('counts a reply once per key', async () => {
    const id = await sessionWith(0n);
    await ledger.charge(id, { key: `c:${id}`, usdMicro: 0n, countReply: true });
    await ledger.charge(id, { key: `c:${id}`, usdMicro: 0n, countReply: true });
    await ledger.charge(id, { key: `c2:${id}`, usdMicro: 0n, countReply: true });
    const rows = await db.query<{ num_replies: number }>('SELECT num_replies FROM sessions WHERE id = $1', [id]);
    expect(Number(rows[0]?.num_replies)).toBe(2);
  });

  it('rejects bad input and unknown sessions', async () => {
    const id = await sessionWith(0n);
    await expect(ledger.charge(id, { key: '', usdMicro: 1n })).rejects.toBeInstanceOf(LedgerInputError);
    await expect(ledger.charge(id, { key: 'neg', usdMicro: -1n })).rejects.toBeInstanceOf(LedgerInputError);
    await expect(ledger.credit(id, { key: 'zero' })).rejects.toBeInstanceOf(LedgerInputError);
    await expect(ledger.charge('ses_nope', { key: 'x1', usdMicro: 1n })).rejects.toBeInstanceOf(UnknownSessionError);
    await expect(ledger.credit('ses_nope', { key: 'x2', usdMicro: 1n })).rejects.toBeInstanceOf(UnknownSessionError);
  });

  it('credit is idempotent by key and a key cannot be reused for another kind', async () => {
    const id = await sessionWith(0n);
    const a = await ledger.credit(id, { key: `cr:${id}`, usdMicro: 5_000_000n });
    const b = await ledger.credit(id, { key: `cr:${id}`, usdMicro: 5_000_000n });
    expect(a.duplicate).toBe(false);
    expect(b.duplicate).toBe(true);
    expect((await ledger.balance(id)).usdMicro).toBe(5_000_000n);
    await expect(ledger.charge(id, { key: `cr:${id}`, usdMicro: 1n })).rejects.toBeInstanceOf(LedgerInputError);
  });

  it('the database itself refuses a negative balance (CHECK constraint)', async () => {
    const id = await sessionWith(10n);
    await expect(db.query('UPDATE sessions SET usd_micro = usd_micro - 11 WHERE id = $1', [id])).rejects.toThrow();
  });
});
