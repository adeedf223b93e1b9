/**
 * Holds on the Ledger (src/server/money/holds.ts): reserve before work, settle once, release, expiry of holds a
 * dead gateway left open. Balances are checked against the entries: balance = credits - charges - open holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../../src/server/admin/cli';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { reservePaidCall, withHold } from '../../../src/server/money/paid-call';
import { createSession } from '../../../src/server/sessions/store';
import { expectLedgerBalanced } from './money-checks';

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
  if (usdMicro > 0n || nanoRaw > 0n) await ledger.credit(session.id, { key: `seed:${session.id}`, usdMicro, nanoRaw });
  return session.id;
}

const HOUR = 3_600_000;

describe('ledger holds', () => {
  it('reserve takes the maximum from USD; settle takes the actual cost once and gives back the rest', async () => {
    const id = await sessionWith(100_000n);
    const r = await ledger.reserve(id, { key: `h:${id}`, maxUsdMicro: 30_000n, ttlMs: HOUR });
    expect(r).toMatchObject({ ok: true, duplicate: false, balance: { usdMicro: 70_000n, nanoRaw: 0n } });
    expect((await ledger.balance(id)).usdMicro).toBe(70_000n);
    const s1 = await ledger.settle(id, `h:${id}`, 7_500n, { countReply: true });
    expect(s1).toMatchObject({ status: 'applied', duplicate: false, source: 'USD', chargedUsdMicro: 7_500n, chargedUsdValueMicro: 7_500n });
    expect(s1.balance.usdMicro).toBe(92_500n);
    const s2 = await ledger.settle(id, `h:${id}`, 7_500n, { countReply: true });
    expect(s2).toMatchObject({ status: 'applied', duplicate: true, chargedUsdMicro: 7_500n });
    expect((await ledger.balance(id)).usdMicro).toBe(92_500n);
    const n = await db.query<{ num_replies: number }>('SELECT num_replies FROM sessions WHERE id = $1', [id]);
    expect(Number(n[0]?.num_replies)).toBe(1);
    await expectLedgerBalanced(db, id);
  });

  it('a cost above the hold is charged the hold, never more', async () => {
    const id = await sessionWith(100_000n);
    await ledger.reserve(id, { key: `over:${id}`, maxUsdMicro: 5_000n, ttlMs: HOUR });
    const s = await ledger.settle(id, `over:${id}`, 9_000n);
    expect(s).toMatchObject({ status: 'applied', chargedUsdMicro: 5_000n, requestedUsdMicro: 9_000n });
    expect((await ledger.balance(id)).usdMicro).toBe(95_000n);
    await expectLedgerBalanced(db, id);
  });

  it('falls back to nano when USD does not cover the hold; settles in nano', async () => {
    const id = await sessionWith(1_000n, 10n ** 30n); // $0.001 and 1 XNO
    const r = await ledger.reserve(id, { key: `n:${id}`, maxUsdMicro: 20_000n, ttlMs: HOUR });
    expect(r.ok && r.hold).toMatchObject({ source: 'nano', heldUsdMicro: 0n, heldNanoRaw: 2n * 10n ** 28n });
    const s = await ledger.settle(id, `n:${id}`, 7_500n);
    expect(s).toMatchObject({ source: 'nano', chargedNanoRaw: 75n * 10n ** 26n, chargedUsdValueMicro: 7_500n });
    expect(await ledger.balance(id)).toEqual({ usdMicro: 1_000n, nanoRaw: 10n ** 30n - 75n * 10n ** 26n });
    await expectLedgerBalanced(db, id);
  });

  it('a hold neither balance covers changes nothing and says what is required', async () => {
    const id = await sessionWith(1_000n, 2n * 10n ** 27n);
    const r = await ledger.reserve(id, { key: `s:${id}`, maxUsdMicro: 2_500n, ttlMs: HOUR });
    expect(r).toMatchObject({ ok: false, requiredUsdMicro: 2_500n, requiredNanoRaw: 25n * 10n ** 26n });
    expect(await ledger.balance(id)).toEqual({ usdMicro: 1_000n, nanoRaw: 2n * 10n ** 27n });
    // The paid-use threshold: a balance must also be above `above`.
    const low = await sessionWith(10n);
    const t = await ledger.reserve(low, { key: `t:${low}`, maxUsdMicro: 5n, ttlMs: HOUR, above: { usdMicro: 10n, nanoRaw: 10n ** 25n } });
    expect(t.ok).toBe(false);
  });

  it('release gives the whole hold back once; a settle after it is a plain charge', async () => {
    const id = await sessionWith(50_000n);
    await ledger.reserve(id, { key: `rel:${id}`, maxUsdMicro: 40_000n, ttlMs: HOUR });
    expect(await ledger.release(`rel:${id}`)).toBe(true);
    expect(await ledger.release(`rel:${id}`)).toBe(false);
    expect((await ledger.balance(id)).usdMicro).toBe(50_000n);
    const late = await ledger.settle(id, `rel:${id}`, 1_000n);
    expect(late).toMatchObject({ status: 'applied', chargedUsdMicro: 1_000n });
    expect((await ledger.balance(id)).usdMicro).toBe(49_000n);
    // forget: the key can be reserved again (a request that never reached its upstream, retried).
    await ledger.reserve(id, { key: `fg:${id}`, maxUsdMicro: 9_000n, ttlMs: HOUR });
    expect(await ledger.release(`fg:${id}`, { forget: true })).toBe(true);
    const again = await ledger.reserve(id, { key: `fg:${id}`, maxUsdMicro: 9_000n, ttlMs: HOUR });
    expect(again).toMatchObject({ ok: true, duplicate: false });
    await expectLedgerBalanced(db, id);
  });

  it('50 concurrent holds never take more than the balance', async () => {
    const id = await sessionWith(1_000_000n);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => ledger.reserve(id, { key: `c:${id}:${i}`, maxUsdMicro: 30_000n, ttlMs: HOUR })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(33);
    expect((await ledger.balance(id)).usdMicro).toBe(10_000n);
    await Promise.all(results.map((r, i) => (r.ok ? ledger.settle(id, `c:${id}:${i}`, 1_000n) : null)));
    expect((await ledger.balance(id)).usdMicro).toBe(1_000_000n - 33_000n);
    await expectLedgerBalanced(db, id);
  });

  it('reserves arriving together share one statement, never overspend, and leave the rest to be decided alone', async () => {
    const usd = await sessionWith(100_000n);
    const nano = await sessionWith(0n, 10n ** 30n); // 1 XNO, no USD: decided alone, from nano
    const twice = `twice:${usd}`;
    // One ledger on a database that counts its statements: reserves of one turn must not be one statement each.
    let statements = 0;
    const counting: Db = { ...db, query: (sql, params) => ((statements += sql.includes('ledger_holds') ? 1 : 0), db.query(sql, params)) };
    const batched = new Ledger(counting, { nanoPriceUsdMicro: 1_000_000n });
    const asks = [
      ...Array.from({ length: 20 }, (_, i) => ({ id: usd, key: `b:${usd}:${i}`, max: 7_000n })),
      { id: usd, key: twice, max: 1_000n },
      { id: usd, key: twice, max: 1_000n },
      ...Array.from({ length: 5 }, (_, i) => ({ id: nano, key: `b:${nano}:${i}`, max: 100_000n })),
    ];
    const results = await Promise.all(
      asks.map((a) => batched.reserve(a.id, { key: a.key, maxUsdMicro: a.max, ttlMs: HOUR, above: { usdMicro: 10n, nanoRaw: 10n ** 19n } })),
    );
    // 100,000 holds 14 of the 7,000 holds (98,000); the first of the key used twice fits in the 2,000 left.
    expect(results.slice(0, 20).filter((r) => r.ok)).toHaveLength(14);
    expect(results[20]).toMatchObject({ ok: true, duplicate: false });
    expect(results[21]).toMatchObject({ ok: true, duplicate: true });
    expect(results.slice(22).every((r) => r.ok && r.hold.source === 'nano')).toBe(true);
    expect(await ledger.balance(usd)).toEqual({ usdMicro: 1_000n, nanoRaw: 0n });
    expect(await ledger.balance(nano)).toEqual({ usdMicro: 0n, nanoRaw: 10n ** 30n - 5n * 10n ** 29n });
    await expectLedgerBalanced(db, usd);
    await expectLedgerBalanced(db, nano);

    // Ten that all fit: one statement, not ten.
    const rich = await sessionWith(100_000n);
    statements = 0;
    const fit = await Promise.all(Array.from({ length: 10 }, (_, i) => batched.reserve(rich, { key: `f:${rich}:${i}`, maxUsdMicro: 10_000n, ttlMs: HOUR })));
    expect(fit.every((r) => r.ok && !r.duplicate)).toBe(true);
    expect(statements).toBe(1);
    expect(fit.map((r) => r.balance.usdMicro)).toEqual(Array.from({ length: 10 }, (_, i) => 100_000n - BigInt(i + 1) * 10_000n));
    expect((await ledger.balance(rich)).usdMicro).toBe(0n);
    await expectLedgerBalanced(db, rich);
  });

  it('settles arriving together share one statement; each charges its own hold once and records the balance after it', async () => {
    const usd = await sessionWith(100_000n);
    const nano = await sessionWith(0n, 10n ** 30n);
    for (let i = 0; i < 8; i++) await ledger.reserve(usd, { key: `s:${usd}:${i}`, maxUsdMicro: 10_000n, ttlMs: HOUR });
    for (let i = 0; i < 2; i++) await ledger.reserve(nano, { key: `s:${nano}:${i}`, maxUsdMicro: 100_000n, ttlMs: HOUR });
    await ledger.release(`s:${usd}:7`); // released: its settle is a plain charge, decided alone
    let statements = 0;
    const counting: Db = { ...db, query: (sql, params) => ((statements += sql.includes('ledger_holds') || sql.includes('ledger_entries') ? 1 : 0), db.query(sql, params)) };
    const batched = new Ledger(counting, { nanoPriceUsdMicro: 1_000_000n });
    const asks = [
      ...Array.from({ length: 7 }, (_, i) => ({ id: usd, key: `s:${usd}:${i}`, cost: 1_000n * BigInt(i + 1) })),
      { id: usd, key: `s:${usd}:0`, cost: 1_000n }, // the same hold twice in the batch
      { id: usd, key: `s:${usd}:7`, cost: 500n },
      { id: nano, key: `s:${nano}:0`, cost: 2_000n },
      { id: nano, key: `s:${nano}:1`, cost: 200_000n }, // above its hold: charged the hold
    ];
    const results = await Promise.all(asks.map((a) => batched.settle(a.id, a.key, a.cost, { countReply: true })));
    expect(results.slice(0, 7).map((r) => r.chargedUsdMicro)).toEqual([1_000n, 2_000n, 3_000n, 4_000n, 5_000n, 6_000n, 7_000n]);
    expect(results[7]).toMatchObject({ duplicate: true, chargedUsdMicro: 1_000n });
    expect(results[8]).toMatchObject({ status: 'applied', chargedUsdMicro: 500n });
    expect(results[9]).toMatchObject({ source: 'nano', chargedNanoRaw: 2n * 10n ** 27n });
    expect(results[10]).toMatchObject({ source: 'nano', chargedNanoRaw: 10n ** 29n });
    // 100,000 - 28,000 charged - 500 charged after the release; 1 XNO - 0.002 - 0.1 XNO.
    expect(await ledger.balance(usd)).toEqual({ usdMicro: 71_500n, nanoRaw: 0n });
    expect(await ledger.balance(nano)).toEqual({ usdMicro: 0n, nanoRaw: 10n ** 30n - 2n * 10n ** 27n - 10n ** 29n });
    // Each entry's balance-after: the holds still open at that point count as taken.
    const after = new Map(
      (await db.query<{ k: string; a: string }>(`SELECT idempotency_key AS k, usd_after_micro::text AS a FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [usd])).map(
        (r) => [r.k, r.a],
      ),
    );
    // 30,000 left after the holds and the release; each settle gives back 10,000 less its cost.
    expect(Array.from({ length: 7 }, (_, i) => after.get(`s:${usd}:${i}`))).toEqual(['39000', '47000', '54000', '60000', '65000', '69000', '72000']);
    expect(statements).toBeLessThan(asks.length - 3);
    const n = await db.query<{ num_replies: number }>('SELECT num_replies FROM sessions WHERE id = $1', [usd]);
    expect(Number(n[0]?.num_replies)).toBe(8);
    await expectLedgerBalanced(db, usd);
    await expectLedgerBalanced(db, nano);
  });

  it('holds a dead gateway left open expire: a sweep gives their money back, once', async () => {
    const id = await sessionWith(100_000n);
    // The gateway that made these "dies": it never settles. One expires at once, one in an hour.
    await ledger.reserve(id, { key: `dead:${id}`, maxUsdMicro: 60_000n, ttlMs: 0 });
    await ledger.reserve(id, { key: `alive:${id}`, maxUsdMicro: 30_000n, ttlMs: HOUR });
    expect((await ledger.balance(id)).usdMicro).toBe(10_000n);
    expect(await ledger.sweepExpiredHolds()).toBeGreaterThanOrEqual(1);
    expect(await ledger.sweepExpiredHolds()).toBe(0);
    expect((await ledger.balance(id)).usdMicro).toBe(70_000n);
    const holds = await ledger.holds(id);
    expect(holds.map((h) => [h.key, h.status])).toEqual([
      [`alive:${id}`, 'held'],
      [`dead:${id}`, 'expired'],
    ]);
    // A settle arriving after the expiry (the gateway was only slow) charges the balance directly.
    const late = await ledger.settle(id, `dead:${id}`, 5_000n);
    expect(late).toMatchObject({ status: 'applied', chargedUsdMicro: 5_000n });
    await expectLedgerBalanced(db, id);
  });

  it('`admin show` prints a session’s holds', async () => {
    const id = await sessionWith(100_000n);
    await ledger.reserve(id, { key: `show:${id}:1`, maxUsdMicro: 30_000n, ttlMs: HOUR });
    await ledger.reserve(id, { key: `show:${id}:2`, maxUsdMicro: 20_000n, ttlMs: HOUR });
    await ledger.settle(id, `show:${id}:2`, 1_234n);
    const out: string[] = [];
    const code = await runAdmin(['show', id], { out: (l) => out.push(l), err: (l) => out.push(l), env: {}, db });
    expect(code).toBe(0);
    const holds = out.filter((l) => l.startsWith('Hold: '));
    expect(holds).toHaveLength(2);
    expect(holds[0]).toMatch(new RegExp(`^Hold: settled 0\\.020000 USD max from USD, charged 0\\.001234; show:${id}:2; made `));
    expect(holds[1]).toMatch(new RegExp(`^Hold: held 0\\.030000 USD max from USD; show:${id}:1; made .* expires `));
  });

  it('a reserve short of money first sweeps its own session’s expired holds', async () => {
    const id = await sessionWith(50_000n);
    await ledger.reserve(id, { key: `d1:${id}`, maxUsdMicro: 50_000n, ttlMs: 0 });
    const r = await ledger.reserve(id, { key: `d2:${id}`, maxUsdMicro: 40_000n, ttlMs: HOUR });
    expect(r.ok).toBe(true);
    expect((await ledger.balance(id)).usdMicro).toBe(10_000n);
    await expectLedgerBalanced(db, id);
  });
});

describe('the paid-call API (money/paid-call.ts)', () => {
  const log: string[] = [];
  const note = (l: string): void => void log.push(l);

  it('withHold reserves, runs the work once, settles once and gives the rest back', async () => {
    const id = await sessionWith(100_000n);
    let runs = 0;
    const r = await withHold(ledger, id, { key: `wh:${id}`, maxUsdMicro: 40_000n, note: 'test image' }, async (hold) => {
      runs++;
      expect((await ledger.balance(id)).usdMicro).toBe(60_000n); // reserved while the work runs
      expect(hold.closed).toBe(false);
      return { value: 'an image', costUsdMicro: 12_345n };
    }, note);
    expect(r).toMatchObject({ ok: true, value: 'an image', settlement: { costUsdMicro: 12_345n, cost: 0.012345, paymentSource: 'USD', billingError: false } });
    expect(runs).toBe(1);
    expect((await ledger.balance(id)).usdMicro).toBe(87_655n);
    await expectLedgerBalanced(db, id);
  });

  it('withHold refuses before the work when the balance cannot hold it, and releases when the work fails or charges nothing', async () => {
    const id = await sessionWith(10_000n);
    let runs = 0;
    const short = await withHold(ledger, id, { key: `ws:${id}`, maxUsdMicro: 40_000n, note: 'test' }, async () => {
      runs++;
      return { value: 1, costUsdMicro: 1n };
    }, note);
    expect(short).toEqual({ ok: false, kind: 'short', shortfall: { requiredUsdMicro: 40_000n, requiredNanoRaw: 40_000n * 10n ** 24n } });
    expect(runs).toBe(0);
    await expect(withHold(ledger, id, { key: `wf:${id}`, maxUsdMicro: 5_000n, note: 'test' }, async () => {
      throw new Error('provider down');
    }, note)).rejects.toThrow('provider down');
    const nothing = await withHold(ledger, id, { key: `wn:${id}`, maxUsdMicro: 5_000n, note: 'test' }, async () => ({ value: null, costUsdMicro: null }), note);
    expect(nothing).toMatchObject({ ok: true, settlement: null });
    expect((await ledger.balance(id)).usdMicro).toBe(10_000n);
    expect((await ledger.holds(id)).map((h) => h.status)).toEqual(['released', 'released']);
    // A key used once is never worked again.
    const again = await withHold(ledger, id, { key: `wn:${id}`, maxUsdMicro: 5_000n, note: 'test' }, async () => ({ value: null, costUsdMicro: null }), note);
    expect(again).toEqual({ ok: false, kind: 'used' });
    await expectLedgerBalanced(db, id);
  });

  it('an open hold settles or releases once, whatever is called after', async () => {
    const id = await sessionWith(100_000n);
    const r = await reservePaidCall(ledger, id, { key: `once:${id}`, maxUsdMicro: 20_000n, note: 'test' }, note);
    if (!r.ok) throw new Error('not reserved');
    const [a, b] = await Promise.all([r.hold.settle(3_000n, { countReply: true }), r.hold.settle(9_000n)]);
    expect(a).toEqual(b);
    await r.hold.release();
    expect((await ledger.balance(id)).usdMicro).toBe(97_000n);
    await expectLedgerBalanced(db, id);
  });

  it('a hold is renewed while its call runs: only a hold whose gateway stopped renewing it expires', async () => {
    const id = await sessionWith(100_000n);
    const r = await reservePaidCall(ledger, id, { key: `renew:${id}`, maxUsdMicro: 20_000n, note: 'test', ttlMs: 1_500 }, note);
    if (!r.ok) throw new Error('not reserved');
    await ledger.reserve(id, { key: `gone:${id}`, maxUsdMicro: 30_000n, ttlMs: 1_500 }); // its gateway died
    await new Promise((res) => setTimeout(res, 2_600));
    await ledger.sweepExpiredHolds();
    const states = Object.fromEntries((await ledger.holds(id)).map((h) => [h.key, h.status]));
    expect(states).toEqual({ [`renew:${id}`]: 'held', [`gone:${id}`]: 'expired' });
    const s = await r.hold.settle(4_000n);
    expect(s).toMatchObject({ costUsdMicro: 4_000n, billingError: false });
    expect((await ledger.balance(id)).usdMicro).toBe(96_000n);
    await expectLedgerBalanced(db, id);
  });

  it('a settle whose answer is lost after it committed reports what was charged, not a billing error', async () => {
    const id = await sessionWith(100_000n);
    const lossy = Object.create(ledger) as Ledger;
    lossy.settle = async (...args: Parameters<Ledger['settle']>) => {
      await ledger.settle(...args);
      throw new Error('connection lost after COMMIT');
    };
    const r = await reservePaidCall(lossy, id, { key: `lost:${id}`, maxUsdMicro: 20_000n, note: 'test' }, note);
    if (!r.ok) throw new Error('not reserved');
    expect(await r.hold.settle(6_000n)).toMatchObject({ costUsdMicro: 6_000n, billingError: false });
    expect((await ledger.balance(id)).usdMicro).toBe(94_000n);
  });

  it('a settle whose key already names another entry changes nothing: the hold stays, reported as a billing error', async () => {
    const id = await sessionWith(100_000n);
    const key = `clash:${id}`;
    const r = await reservePaidCall(ledger, id, { key, maxUsdMicro: 20_000n, note: 'test' }, note);
    if (!r.ok) throw new Error('not reserved');
    await ledger.credit(id, { key, usdMicro: 1n }); // another operation took the key meanwhile
    await expect(ledger.settle(id, key, 5_000n)).rejects.toThrow(/already used/);
    const s = await r.hold.settle(5_000n);
    expect(s).toMatchObject({ cost: 0, billingError: true });
    expect((await ledger.holds(id))[0]?.status).toBe('held');
    expect((await ledger.balance(id)).usdMicro).toBe(80_001n);
    await expectLedgerBalanced(db, id);
  });
});
