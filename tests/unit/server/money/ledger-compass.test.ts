/**
 * The ledger tests, on embedded PGlite and on a real PostgreSQL the test starts (./pg-server.ts; or
 * PARLEY_TEST_DATABASE_URL), where transactions truly run in parallel:
 *  - $1 and 50 parallel $0.10 charges: at most 10 accepted, never negative, debits equal credits;
 *  - 200 parallel redeems of one invitation: exactly one credit;
 *  - one provider event delivered 20 times and out of order: one credit;
 *  - a crash between the provider's confirmation and the credit, then a retry: one credit;
 *  - amounts of 0, negative, NaN, 2^64, 1e-30 and non-numeric strings refused everywhere.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../src/server/db/open';
import type { Db } from '../../../../src/server/db/types';
import { Ledger, LedgerInputError, type CreditRequest } from '../../../../src/server/money/ledger';
import { getTx, settlePayment } from '../../../../src/server/payments/store';
import type { PaymentStatus, PaymentTransaction } from '../../../../src/protocol/payments';
import { expectLedgerBalanced } from '../money-checks';
import { startTempPostgres, type TempPostgres } from '../pg-server';
import { BAD_AMOUNTS, balanceOf, call, creditsOf, moneyGateway, type MoneyGateway } from './helpers';

class CrashOnce extends Ledger {
  crash = false;
  override async credit(sessionId: string, req: CreditRequest) {
    const r = await super.credit(sessionId, req);
    if (this.crash) {
      this.crash = false;
      // The credit committed, then the process "died" before the transaction was marked completed.
      throw new Error('crash after the credit');
    }
    return r;
  }
}

function scenarios(name: string, open: () => Promise<{ db: Db; done: () => Promise<void> }>) {
  describe(name, () => {
    let gw: MoneyGateway;
    let ledger: CrashOnce;
    let done: () => Promise<void>;
    beforeAll(async () => {
      const opened = await open();
      done = opened.done;
      gw = await moneyGateway({}, { db: opened.db, ledger: (db, price) => (ledger = new CrashOnce(db, { nanoPriceUsdMicro: price })) });
    }, 120_000);
    afterAll(async () => {
      await done?.();
    });

    it('$1 and 50 parallel $0.10 charges: at most 10 accepted, never negative, debits equal credits', async () => {
      const s = await gw.session();
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => gw.ledger.charge(s.data.id, { key: `c:${s.data.id}:${i}`, usdMicro: 100_000n })));
      const applied = results.filter((r) => r.status === 'applied');
      expect(applied.length).toBeLessThanOrEqual(10);
      expect(applied.length).toBe(10);
      expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
      await expectLedgerBalanced(gw.db, s.data.id);
    });

    it('200 parallel redeems of one invitation: exactly one credit', async () => {
      const creator = await gw.session();
      await gw.ledger.credit(creator.data.id, { key: `seed:${creator.data.id}`, usdMicro: 3_000_000n });
      const made = await call<{ invitation: { redeemCode: string } }>(gw.app, 'POST', '/invitations/create', creator.cookie, {
        amount: '2.5',
        currency: 'USD',
        recipientName: 'Ada',
        expiresAt: Date.now() + 3_600_000,
      });
      expect(made.status).toBe(200);
      const code = made.body.invitation.redeemCode;
      const redeemers = await Promise.all(Array.from({ length: 200 }, () => gw.session()));
      const answers = await Promise.all(redeemers.map((r) => call(gw.app, 'POST', '/invitations/redeem', r.cookie, { redeemCode: code })));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status !== 200).every((a) => a.body.error === 'InviteNotFound')).toBe(true);
      const rows = await gw.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE idempotency_key = $1`, [`invite:${code}:redeem`]);
      expect(rows[0]?.n).toBe('1');
      const winner = redeemers[answers.findIndex((a) => a.status === 200)]!;
      expect((await balanceOf(gw.db, winner.data.id)).usd).toBe(2_500_000n);
      expect((await balanceOf(gw.db, creator.data.id)).usd).toBe(500_000n);
      await expectLedgerBalanced(gw.db, winner.data.id);
      await expectLedgerBalanced(gw.db, creator.data.id);
    });

    it('one provider event delivered 20 times, out of order and in parallel: one credit', async () => {
      const s = await gw.session();
      const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount: '4' });
      const tx = (await getTx(gw.db, made.body.id))!;
      const outcomes: PaymentStatus[] = ['expired', 'completed', 'failed', 'completed', 'pending'];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => settlePayment({ db: gw.db, ledger }, tx, outcomes[i % 5]!, { provider: 'test', id: `evt-${i % 3}` })),
      );
      expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
      expect((await balanceOf(gw.db, s.data.id)).usd).toBe(4_000_000n);
      expect((await getTx(gw.db, tx.id))?.status).toBe('completed');
      await expectLedgerBalanced(gw.db, s.data.id);
    });

    it('a crash between the confirmation and the credit, then a retry: one credit', async () => {
      const s = await gw.session();
      const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount: '6' });
      const tx = (await getTx(gw.db, made.body.id))!;
      ledger.crash = true;
      await expect(settlePayment({ db: gw.db, ledger }, tx, 'completed', { provider: 'test', id: 'once' })).rejects.toThrow(/crash/);
      expect((await getTx(gw.db, tx.id))?.status).toBe('pending');
      // The retry (a redelivery, a poll or the sweep) finishes the job without crediting again.
      expect((await call(gw.app, 'GET', `/transaction/status/USD/${tx.id}`, s.cookie)).body).toEqual({ status: 'pending' });
      expect(await settlePayment({ db: gw.db, ledger }, tx, 'completed', { provider: 'test', id: 'once' })).toBe('completed');
      expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
      expect((await balanceOf(gw.db, s.data.id)).usd).toBe(6_000_000n);
    });

    it('amounts of 0, negative, NaN, 2^64, 1e-30 and non-numeric strings are refused everywhere', async () => {
      const s = await gw.session();
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 5_000_000n, nanoRaw: 10n ** 30n });
      const later = Date.now() + 3_600_000;
      // An invitation to update (its 1 USD reserved from the balance).
      const invited = await call<{ invitation: { redeemCode: string } }>(gw.app, 'POST', '/invitations/create', s.cookie, { amount: '1', currency: 'USD', expiresAt: later });
      expect(invited.status).toBe(200);
      const redeemCode = invited.body.invitation.redeemCode;
      for (const amount of BAD_AMOUNTS) {
        const label = JSON.stringify(amount);
        const answers = [
          await call(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount }),
          await call(gw.app, 'POST', '/invitations/create', s.cookie, { amount, currency: 'USD', expiresAt: later }),
          await call(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode, amount }),
          await call(gw.app, 'POST', '/nano/convert-to-usd', s.cookie, { amount }),
          await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: amount, target: '5' }),
          await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '1', target: amount }),
          await call(gw.app, 'POST', '/transaction/create/daimo/USDC', s.cookie, { amount }),
        ];
        for (const [i, a] of answers.entries()) {
          expect(a.status, `${label} #${i}`).toBeGreaterThanOrEqual(400);
          expect(a.status, `${label} #${i}`).toBeLessThan(500);
        }
        expect(answers[1]!.body.error, label).toBe('InvalidAmount');
        expect(answers[2]!.body.error, label).toBe('InvalidAmount');
      }
      // Nothing moved: the invitation still holds 1 USD, no transaction was created, no recharge is set.
      const listed = await call<{ invitations: { redeemCode: string; amount: string }[] }>(gw.app, 'GET', '/api/invitations', s.cookie);
      expect(listed.body.invitations.map((i) => [i.redeemCode, i.amount])).toEqual([[redeemCode, '1.000000']]);
      const txs = await gw.db.query<{ n: string }>('SELECT count(*)::text AS n FROM payment_transactions WHERE session_id = $1', [s.data.id]);
      expect(txs[0]?.n).toBe('0');
      // The same calls with a good amount go through (the refusals above were for the amount).
      expect((await call(gw.app, 'POST', '/transaction/create/daimo/USDC', s.cookie, { amount: '5' })).status).toBe(200);
      expect((await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '1', target: '5' })).status).toBe(200);
      expect((await call(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode, amount: '2' })).status).toBe(200);
      expect((await call(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode, amount: '1' })).status).toBe(200);
      await gw.ledger.credit(s.data.id, { key: `back:${s.data.id}`, usdMicro: 1_000_000n }); // the invitation's 1 USD, for the totals below
      for (const v of [-1n, -(2n ** 64n)]) {
        await expect(gw.ledger.credit(s.data.id, { key: `bad:${v}`, usdMicro: v })).rejects.toBeInstanceOf(LedgerInputError);
        await expect(gw.ledger.charge(s.data.id, { key: `bad:${v}`, usdMicro: v })).rejects.toBeInstanceOf(LedgerInputError);
      }
      await expect(gw.ledger.credit(s.data.id, { key: 'zero', usdMicro: 0n })).rejects.toBeInstanceOf(LedgerInputError);
      // A charge of 0 is a free reply's record (ledger.ts chargeNothing): it moves no money, in either direction.
      const zero = await gw.ledger.charge(s.data.id, { key: `zero-charge:${s.data.id}`, usdMicro: 0n });
      expect(zero).toMatchObject({ status: 'applied', chargedUsdMicro: 0n, chargedUsdValueMicro: 0n });
      expect(zero.balance).toEqual({ usdMicro: 5_000_000n, nanoRaw: 10n ** 30n });
      expect(await balanceOf(gw.db, s.data.id)).toEqual({ usd: 5_000_000n, nano: 10n ** 30n });
      await expectLedgerBalanced(gw.db, s.data.id);
    });
  });
}

scenarios('ledger on PGlite', async () => {
  const db = await openDatabase({ kind: 'memory' });
  return { db, done: () => db.close() };
});

let pg: TempPostgres | null = null;
scenarios('ledger on PostgreSQL', async () => {
  let adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
  if (!adminUrl) {
    pg = await startTempPostgres();
    adminUrl = pg.url;
  }
  const name = `parley_money_${randomBytes(5).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'postgres', url: u.toString() });
  return {
    db,
    done: async () => {
      await db.close();
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name}`);
      await a.end();
      await pg?.stop();
    },
  };
});
