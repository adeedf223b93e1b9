import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerBalanced } from '../money-checks';
import { BAD_AMOUNTS, balanceOf, call, creditsOf, moneyGateway, type MoneyGateway } from './helpers';
import type { PaymentLimits, PaymentTransaction } from '../../../../src/protocol/payments';

let gw: MoneyGateway;
beforeAll(async () => {
  gw = await moneyGateway({ PARLEY_PAYMENT_RATES: '{"ZEC":"40"}', PARLEY_EUR_PER_USD: '0.9' });
});
afterAll(async () => {
  await gw.close();
});

async function checkout(path: string): Promise<{ status: number; html: string; token: string }> {
  const res = await gw.app.request(path);
  const html = await res.text();
  return { status: res.status, html, token: /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '' };
}

async function press(txId: string, token: string, action: string): Promise<{ status: number; html: string }> {
  const res = await gw.app.request(`/pay/test/${txId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, action }).toString(),
  });
  return { status: res.status, html: await res.text() };
}

describe('deposits with the built-in test provider', () => {
  it('limits follow section 9: card $1 to $2000, $5 after a deposit; others 0.1 to 2000 USD; EURD 0.1 to 1500', async () => {
    const s = await gw.session();
    const usd = await call<PaymentLimits>(gw.app, 'GET', '/api/transaction/limits/USD', s.cookie);
    expect(usd.status).toBe(200);
    expect(usd.body).toMatchObject({ minimum: '1', maximum: '2000', fiatEquivalentMinimum: '1', fiatEquivalentMaximum: '2000', provider: 'test' });
    const zec = await call<PaymentLimits>(gw.app, 'GET', '/api/transaction/limits/ZEC', s.cookie);
    expect(zec.body).toMatchObject({ minimum: '0.0025', maximum: '50', fiatEquivalentMinimum: '0.1', fiatEquivalentMaximum: '2000', provider: 'test' });
    const eurd = await call<PaymentLimits>(gw.app, 'GET', '/api/transaction/limits/EURD', s.cookie);
    expect(eurd.body).toMatchObject({ minimum: '0.1', maximum: '1500' });
    const eur = await call<PaymentLimits>(gw.app, 'GET', '/api/transaction/limits/EUR', s.cookie);
    expect(eur.body).toMatchObject({ minimum: '0.9', maximum: '1800' });
    // No rate and no provider for BTC here: known, but unavailable.
    const btc = await call(gw.app, 'GET', '/api/transaction/limits/BTC', s.cookie);
    expect(btc.status).toBe(404);
    expect(btc.body.error).toBe('METHOD_UNAVAILABLE');
    expect((await call(gw.app, 'POST', '/transaction/create/BTC', s.cookie, { amount: '0.001' })).body.message).toMatch(/payment method/);
  });

  it('Pay credits the USD value once, the status turns completed, and the card minimum becomes $5', async () => {
    const s = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount: '7.5' });
    expect(made.status).toBe(200);
    expect(made.body.paymentLink).toMatch(new RegExp(`/pay/test/${made.body.id}$`));
    expect(Math.abs(made.body.createdAt - Date.now() / 1000)).toBeLessThan(60);
    const path = new URL(made.body.paymentLink).pathname;
    const page = await checkout(path);
    expect(page.status).toBe(200);
    for (const b of ['Pay', 'Fail', 'Expire']) expect(page.html).toContain(`>${b}</button>`);
    expect((await call(gw.app, 'GET', `/transaction/status/USD/${made.body.id}`, s.cookie)).body).toEqual({ status: 'pending' });
    expect((await press(made.body.id, page.token, 'pay')).html).toContain('Payment received');
    // The page again, a second Pay, a Fail after it: nothing more.
    await press(made.body.id, page.token, 'pay');
    await press(made.body.id, page.token, 'fail');
    expect((await call(gw.app, 'GET', `/transaction/status/USD/${made.body.id}`, s.cookie)).body).toEqual({ status: 'completed' });
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(7_500_000n);
    expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
    await expectLedgerBalanced(gw.db, s.data.id);
    const usd = await call<PaymentLimits>(gw.app, 'GET', '/api/transaction/limits/USD', s.cookie);
    expect(usd.body.minimum).toBe('5');
    const small = await call(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount: '2' });
    expect(small.status).toBe(400);
    expect(small.body).toMatchObject({ error: 'AMOUNT_TOO_SMALL', limit: '5' });
    expect(small.body.message).toMatch(/minimum/);
  });

  it('Fail and Expire credit nothing; a wrong token settles nothing', async () => {
    const s = await gw.session();
    for (const [action, status] of [['fail', 'failed'], ['expire', 'expired']] as const) {
      const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/ZEC', s.cookie, { amount: '0.1' });
      expect(made.status).toBe(200);
      const page = await checkout(`/pay/test/${made.body.id}`);
      expect((await press(made.body.id, 'x'.repeat(page.token.length), 'pay')).status).toBe(403);
      await press(made.body.id, page.token, action);
      await press(made.body.id, page.token, 'pay');
      expect((await call(gw.app, 'GET', `/transaction/status/ZEC/${made.body.id}`, s.cookie)).body).toEqual({ status });
    }
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
  });

  it('a transaction left pending expires after 30 minutes; another session cannot see it', async () => {
    const s = await gw.session();
    const other = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount: '3' });
    expect((await call(gw.app, 'GET', `/transaction/status/USD/${made.body.id}`, other.cookie)).status).toBe(404);
    const row = await gw.db.query<{ mins: number }>(
      `SELECT EXTRACT(EPOCH FROM expires_at - created_at)::float8 / 60 AS mins FROM payment_transactions WHERE id = $1`,
      [made.body.id],
    );
    expect(Number(row[0]?.mins)).toBeCloseTo(30, 3);
    await gw.db.query(`UPDATE payment_transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, [made.body.id]);
    await gw.money.sweep();
    expect((await call(gw.app, 'GET', `/transaction/status/USD/${made.body.id}`, s.cookie)).body).toEqual({ status: 'expired' });
  });

  it('refuses 0, negative, NaN, 2^64, 1e-30 and non-numeric amounts with a 4xx', async () => {
    const s = await gw.session();
    for (const amount of BAD_AMOUNTS) {
      const r = await call(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount });
      expect(r.status, JSON.stringify(amount)).toBeGreaterThanOrEqual(400);
      expect(r.status, JSON.stringify(amount)).toBeLessThan(500);
    }
    expect((await call(gw.app, 'POST', '/transaction/create/USD', s.cookie, '{"amount":')).status).toBe(400);
    expect((await call(gw.app, 'POST', '/transaction/create/USD', null, { amount: '5' })).status).toBe(401);
    const rows = await gw.db.query<{ n: string }>('SELECT count(*)::text AS n FROM payment_transactions WHERE session_id = $1', [s.data.id]);
    expect(rows[0]?.n).toBe('0');
  });

  it('fiat prices answer eurUsd and gbpUsd', async () => {
    const s = await gw.session();
    const r = await call(gw.app, 'GET', '/api/get-fiat-prices', s.cookie);
    expect(r.body).toEqual({ eurUsd: '0.900000', gbpUsd: '0.790000' });
  });

  it('Daimo-style: Pay at the provider credits nothing until the redeem call with the nonce; redeemed once', async () => {
    const s = await gw.session();
    const other = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/daimo/USDC', s.cookie, { amount: '5' });
    expect(made.status).toBe(200);
    expect(made.body.paymentNonce).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const redeem = (cookie: string, nonce: string) =>
      call(gw.app, 'POST', '/transaction/callback/daimo', cookie, { type: 'redeem_payment', paymentNonce: nonce, payment: { id: made.body.id } });
    // Not paid yet: nothing to redeem.
    expect((await redeem(s.cookie, made.body.paymentNonce!)).status).toBe(409);
    const page = await checkout(`/pay/test/${made.body.id}`);
    expect((await press(made.body.id, page.token, 'pay')).html).toContain('Payment sent');
    expect((await call(gw.app, 'GET', `/transaction/status/USDC/${made.body.id}`, s.cookie)).body).toEqual({ status: 'pending', redeemable: true });
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
    expect((await redeem(s.cookie, 'x'.repeat(24))).status).toBe(409);
    expect((await redeem(other.cookie, made.body.paymentNonce!)).status).toBe(409);
    const answers = await Promise.all(Array.from({ length: 5 }, () => redeem(s.cookie, made.body.paymentNonce!)));
    expect(answers.map((a) => a.body)).toEqual(Array(5).fill({ success: true, status: 'completed' }));
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(5_000_000n);
    expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
    expect((await call(gw.app, 'POST', '/transaction/callback/daimo', s.cookie, { type: 'other', paymentNonce: 'x'.repeat(10), payment: { id: 'a' } })).status).toBe(400);
  });
});
