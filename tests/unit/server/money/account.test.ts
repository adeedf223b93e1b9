/** Recovery codes, account-merge-check, auto-recharge with the test provider, nano conversion. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../../src/server/app';
import { loadConfig } from '../../../../src/server/config';
import { Catalogue } from '../../../../src/server/chat/catalogue';
import { expectLedgerBalanced } from '../money-checks';
import { balanceOf, call, moneyGateway, type MoneyGateway } from './helpers';

let gw: MoneyGateway;
beforeAll(async () => {
  gw = await moneyGateway({ PARLEY_NANO_USD_PRICE: '2' });
});
afterAll(async () => {
  await gw.close();
});

describe('recovery code', () => {
  it('is shown once, stored only as an HMAC, and opens the same session and balance in another browser', async () => {
    const s = await gw.session();
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 4_200_000n });
    expect((await call(gw.app, 'GET', '/auth/account-merge-check', s.cookie)).body).toEqual({ canMigrate: true, hasRecoveryCode: false });
    const made = await call<{ code: string }>(gw.app, 'POST', '/api/session/recovery-code', s.cookie);
    expect(made.body.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
    const stored = await gw.db.query<{ h: string }>('SELECT recovery_code_hash AS h FROM sessions WHERE id = $1', [s.data.id]);
    expect(stored[0]?.h).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]?.h).not.toContain(made.body.code.replace(/-/g, ''));
    expect((await call(gw.app, 'GET', '/auth/account-merge-check', s.cookie)).body).toEqual({ canMigrate: false, hasRecoveryCode: true });

    // A fresh browser (no cookie), typing the code in lower case with spaces.
    const typed = made.body.code.toLowerCase().replace(/-/g, ' ');
    const res = await gw.app.request('/auth/recover', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: typed }) });
    expect(res.status).toBe(200);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toMatch(/^parley_session=/);
    expect(cookie).not.toBe(s.cookie);
    const again = await call<{ data: { id: string; usd_balance: string } }>(gw.app, 'GET', '/auth/local-session', cookie);
    expect(again.body.data).toMatchObject({ id: s.data.id, usd_balance: '4.200000' });
    // Both browsers keep the session.
    expect((await call<{ data: { id: string } }>(gw.app, 'GET', '/auth/local-session', s.cookie)).body.data.id).toBe(s.data.id);
    // A new code replaces the old one.
    await call(gw.app, 'POST', '/api/session/recovery-code', s.cookie);
    expect((await call(gw.app, 'POST', '/auth/recover', null, { code: made.body.code })).status).toBe(401);
  });

  it('wrong codes are refused, then rate-limited per client address', async () => {
    const config = loadConfig({ PARLEY_GUESS_RATE_BURST: '3', PARLEY_GUESS_RATE_PER_MIN: '1' });
    const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, discoveryTimeoutMs: 1000, log: () => {} });
    const app = createApp({ db: gw.db, catalogue, ledger: gw.ledger, settings: { guards: config.guards }, clientAddress: () => '203.0.113.7', log: () => {}, money: { ...gw.money, cfg: config.money } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(app, 'POST', '/auth/recover', null, { code: 'ABCDE-FGHJK-MNPQR-STVWX-YZ012' })).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('auto-recharge with the test provider', () => {
  /** The pending top-up the wallet shows, paid with its checkout's Pay button. */
  const payTopUp = async (cookie: string): Promise<void> => {
    const pending = (await call<{ data: { recharge_settings: { pending?: { paymentLink: string } } } }>(gw.app, 'GET', '/auth/local-session', cookie)).body.data.recharge_settings.pending;
    expect(pending?.paymentLink).toMatch(/^\/pay\/test\/tx_/);
    const page = await (await gw.app.request(pending!.paymentLink)).text();
    const token = /name="token" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const paid = await gw.app.request(pending!.paymentLink, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, action: 'pay' }).toString() });
    expect(await paid.text()).toContain('Payment received');
  };

  it('asks once per crossing below the threshold, up to the target, each top-up credited only when its checkout is paid', async () => {
    const s = await gw.session();
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 10_000_000n });
    const set = await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '5', target: '12' });
    expect(set.body).toEqual({ success: true, recharge_settings: { enabled: true, threshold: '5.000000', amount: '12.000000' } });
    expect((await call<{ data: { recharge_settings: unknown } }>(gw.app, 'GET', '/auth/local-session', s.cookie)).body.data.recharge_settings).toEqual({
      enabled: true,
      threshold: '5.000000',
      amount: '12.000000',
    });
    await gw.money.sweep();
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(10_000_000n);
    await gw.ledger.charge(s.data.id, { key: `c1:${s.data.id}`, usdMicro: 6_000_000n });
    await Promise.all([gw.money.sweep(), gw.money.sweep(), gw.money.sweep()]);
    // Asked once, and nothing credited until the payer pays.
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(4_000_000n);
    await gw.money.sweep();
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(4_000_000n);
    await payTopUp(s.cookie);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(12_000_000n);
    expect((await call<{ data: { recharge_settings: Record<string, unknown> } }>(gw.app, 'GET', '/auth/local-session', s.cookie)).body.data.recharge_settings.pending).toBeUndefined();
    const count = async () =>
      Number((await gw.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM payment_transactions WHERE session_id = $1 AND purpose = 'recharge'`, [s.data.id]))[0]?.n);
    expect(await count()).toBe(1);
    // Above again, then a second crossing: a second top-up, again credited only by its Pay.
    await gw.ledger.charge(s.data.id, { key: `c2:${s.data.id}`, usdMicro: 8_000_000n });
    await gw.money.sweep();
    expect(await count()).toBe(2);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(4_000_000n);
    await payTopUp(s.cookie);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(12_000_000n);
    await expectLedgerBalanced(gw.db, s.data.id);
    expect((await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '5', target: '4' })).status).toBe(400);
  });
});

describe('nano to USD', () => {
  it('converts at the nano price in one ledger move; nothing to convert is refused', async () => {
    const s = await gw.session();
    expect((await call(gw.app, 'POST', '/nano/convert-to-usd', s.cookie, {})).status).toBe(400);
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, nanoRaw: 3n * 10n ** 30n });
    const part = await call(gw.app, 'POST', '/nano/convert-to-usd', s.cookie, { amount: '0.5' });
    expect(part.body).toEqual({ success: true, amount: '0.500000', usd: '1.000000' });
    const rest = await call(gw.app, 'POST', '/nano/convert-to-usd', s.cookie, {});
    expect(rest.body).toEqual({ success: true, amount: '2.500000', usd: '5.000000' });
    expect(await balanceOf(gw.db, s.data.id)).toEqual({ usd: 6_000_000n, nano: 0n });
    expect((await call(gw.app, 'POST', '/nano/convert-to-usd', s.cookie, { amount: '1' })).status).toBe(402);
    expect((await call(gw.app, 'GET', '/get-nano-price', null)).body).toEqual({ latestPrice: 2 });
    await expectLedgerBalanced(gw.db, s.data.id);
  });
});

describe('display currency', () => {
  const displayed = async (cookie: string): Promise<unknown> =>
    ((await call<{ data: { displayCurrency: string } }>(gw.app, 'GET', '/auth/local-session', cookie)).body.data.displayCurrency);

  it('POST /api/session/display-currency sets USD or XNO, and the session call reflects it', async () => {
    const s = await gw.session();
    expect(await displayed(s.cookie)).toBe('USD');
    for (const value of ['XNO', 'USD', 'XNO']) {
      const r = await call(gw.app, 'POST', '/api/session/display-currency', s.cookie, { displayCurrency: value });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ displayCurrency: value });
      expect(await displayed(s.cookie)).toBe(value);
    }
    // Another session is not touched.
    expect(await displayed((await gw.session()).cookie)).toBe('USD');
  });

  it('refuses anything else with 400 and keeps the value; needs a session', async () => {
    const s = await gw.session();
    await call(gw.app, 'POST', '/api/session/display-currency', s.cookie, { displayCurrency: 'XNO' });
    for (const body of [{ displayCurrency: 'EUR' }, { displayCurrency: 'usd' }, { displayCurrency: '' }, { displayCurrency: null }, { displayCurrency: 1 }, {}, { displayCurrency: 'USD', extra: true }, [], 'USD']) {
      const r = await call<{ error: string; message: string }>(gw.app, 'POST', '/api/session/display-currency', s.cookie, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('BAD_REQUEST');
      expect(typeof r.body.message).toBe('string');
    }
    expect((await call(gw.app, 'POST', '/api/session/display-currency', s.cookie, '{"displayCurrency":')).status).toBe(400);
    expect(await displayed(s.cookie)).toBe('XNO');
    expect((await call(gw.app, 'POST', '/api/session/display-currency', null, { displayCurrency: 'USD' })).status).toBe(401);
  });
});
