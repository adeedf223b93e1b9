/**
 * Issue 15, item 5: the built-in test payment provider is live only on purpose (PARLEY_TEST_PAYMENTS=true) or on a
 * loopback-only gateway with nothing priced; never beside priced models without the switch. Startup says which
 * providers are live. Auto-recharge through it credits nothing until its checkout's Pay is pressed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/server/config';
import { type Env } from '../../../../src/server/env-vars';
import { decideTestPayments, pricedServices } from '../../../../src/server/payments/test-switch';
import { loadSearchConfig } from '../../../../src/server/web/search-config';
import { loadSpeechConfig } from '../../../../src/server/speech/config';
import { startGateway } from '../../../../src/server/start';
import type { PaymentMethodsResponse } from '../../../../src/protocol/payments';
import { expectLedgerBalanced } from '../money-checks';
import { balanceOf, call, moneyGateway, type MoneyGateway } from './helpers';

const PRICED_CHAT: Env = {
  PARLEY_UPSTREAM_URL: 'http://127.0.0.1:9/v1',
  PARLEY_UPSTREAM_MODELS: 'free-model,paid-model',
  PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'paid-model': { input: '1', output: '2' } }),
};

function decide(env: Env, host = '127.0.0.1') {
  const config = loadConfig(env);
  return decideTestPayments(config, host, pricedServices(config, loadSpeechConfig(env), loadSearchConfig(env)));
}

describe('when the test provider is live', () => {
  it('unset: only on a loopback-only gateway with nothing priced and no real provider', () => {
    expect(decide({}).on).toBe(true);
    expect(decide({}, 'localhost').on).toBe(true);
    expect(decide({}, '::1').on).toBe(true);
    // Free upstream models are fine.
    expect(decide({ PARLEY_UPSTREAM_URL: 'http://127.0.0.1:9/v1', PARLEY_UPSTREAM_MODELS: 'free-model' }).on).toBe(true);
    // Anything priced turns it off: a chat model, an image or video model, a speech voice, transcription, search.
    expect(decide(PRICED_CHAT)).toMatchObject({ on: false, reason: expect.stringContaining('chat model paid-model') });
    expect(decide({ PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'img', url: 'http://127.0.0.1:9/v1', models: ['flux-schnell'], pricing: { 'flux-schnell': '0.003' } }]) })).toMatchObject({
      on: false,
      reason: expect.stringContaining('image model flux-schnell'),
    });
    expect(decide({ PARLEY_VIDEO_PROVIDERS: JSON.stringify([{ name: 'vid', url: 'http://127.0.0.1:9', models: ['kling'], pricing: { kling: '1.4' } }]) }).on).toBe(false);
    expect(decide({ PARLEY_TTS_PROVIDERS: JSON.stringify([{ name: 'oa', kind: 'openai', url: 'http://127.0.0.1:9/v1', models: { 'tts-1': 'tts-1' } }]) }).on).toBe(false);
    // A voice priced at 0 by its operator is free.
    expect(decide({ PARLEY_TTS_PROVIDERS: JSON.stringify([{ name: 'k', kind: 'openai', url: 'http://127.0.0.1:9/v1', models: { 'tts-1': 'tts-1' }, pricing: { 'tts-1': '0' } }]) }).on).toBe(true);
    expect(decide({ PARLEY_TRANSCRIBE_PROVIDER: JSON.stringify({ name: 'w', url: 'http://127.0.0.1:9/t', model: 'whisper-1', pricePerMinute: '0.006' }) }).on).toBe(false);
    expect(decide({ PARLEY_SEARXNG_URL: 'http://127.0.0.1:9' }).on).toBe(false);
    // Reachable beyond loopback: another host, a trusted proxy in front, a public URL elsewhere.
    expect(decide({}, '0.0.0.0').on).toBe(false);
    expect(decide({}, '192.0.2.10').on).toBe(false);
    expect(decide({ PARLEY_TRUSTED_PROXY_HEADER: 'X-Forwarded-For' }).on).toBe(false);
    expect(decide({ PARLEY_PUBLIC_URL: 'https://parley.example' }).on).toBe(false);
    expect(decide({ PARLEY_PUBLIC_URL: 'http://127.0.0.1:8787' }).on).toBe(true);
    // A real provider configured: off.
    expect(decide({ PARLEY_STRIPE_KEY: 'sk', PARLEY_STRIPE_WEBHOOK_SECRET: 'whsec' }).on).toBe(false);
  });

  it('PARLEY_TEST_PAYMENTS decides when set, priced models and public hosts included', () => {
    expect(decide({ ...PRICED_CHAT, PARLEY_TEST_PAYMENTS: 'true' }).on).toBe(true);
    expect(decide({ PARLEY_TEST_PAYMENTS: 'true' }, '0.0.0.0').on).toBe(true);
    expect(decide({ PARLEY_TEST_PAYMENTS: 'false' }).on).toBe(false);
  });
});

describe('startGateway: the providers the deposit dialog offers', () => {
  async function methodsOf(env: Env): Promise<{ body: PaymentMethodsResponse; created: number; checkout: number; logs: string[] }> {
    const logs: string[] = [];
    const gw = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: null, log: (l) => void logs.push(l), env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', ...env } });
    try {
      const session = await fetch(`${gw.url}/auth/local-session`);
      const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const body = (await (await fetch(`${gw.url}/api/payment-methods`, { headers: { cookie } })).json()) as PaymentMethodsResponse;
      const made = await fetch(`${gw.url}/transaction/create/USD`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ amount: '5' }) });
      const id = made.ok ? ((await made.json()) as { id: string }).id : 'tx_none';
      const checkout = (await fetch(`${gw.url}/pay/test/${id}`)).status;
      return { body, created: made.status, checkout, logs };
    } finally {
      await gw.close();
    }
  }

  it('a priced catalogue without the switch: no test provider, no deposit method names it, its checkout does not exist', async () => {
    const r = await methodsOf(PRICED_CHAT);
    expect(r.body.testPayments).toBe(false);
    expect(r.body.methods.filter((m) => m.provider === 'test')).toEqual([]);
    expect(r.created).toBe(400);
    expect(r.checkout).toBe(404);
    expect(r.logs).toContain('payments: live providers: none (deposits are unavailable)');
    expect(r.logs.some((l) => l.startsWith('payments: the test payment provider is off (priced services are configured: chat model paid-model (upstream)'))).toBe(true);
  });

  it('the explicit switch beside priced models: on, and startup warns', async () => {
    const r = await methodsOf({ ...PRICED_CHAT, PARLEY_TEST_PAYMENTS: 'true' });
    expect(r.body.testPayments).toBe(true);
    expect(r.body.methods.find((m) => m.ticker === 'USD')?.provider).toBe('test');
    expect(r.created).toBe(200);
    expect(r.checkout).toBe(200);
    expect(r.logs).toContain('payments: live providers: test');
    expect(r.logs.some((l) => l.startsWith('WARNING: the built-in TEST payment provider is live (PARLEY_TEST_PAYMENTS=true)'))).toBe(true);
  });

  it('a fresh loopback gateway with only free models (npm start): on, and startup warns', async () => {
    const r = await methodsOf({});
    expect(r.body.testPayments).toBe(true);
    expect(r.created).toBe(200);
    expect(r.logs.some((l) => l.startsWith('WARNING: the built-in TEST payment provider is live (a loopback-only gateway with nothing priced)'))).toBe(true);
  });
});

describe('auto-recharge credits only a completed payment', () => {
  let gw: MoneyGateway;
  beforeAll(async () => {
    gw = await moneyGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  it('a $0 session that turns auto-recharge on gets a checkout, and nothing until its Pay is pressed', async () => {
    const s = await gw.session();
    expect((await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '1999', target: '2000' })).status).toBe(200);
    // Many sweeps, in parallel as two gateways would run them: one top-up asked, none credited.
    for (let i = 0; i < 3; i++) await Promise.all([gw.money.sweep(), gw.money.sweep()]);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
    const txs = await gw.db.query<{ id: string; status: string; payment_link: string }>(
      `SELECT id, status, payment_link FROM payment_transactions WHERE session_id = $1 AND purpose = 'recharge'`,
      [s.data.id],
    );
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({ status: 'pending', payment_link: `/pay/test/${txs[0]!.id}` });
    const view = await call<{ data: { recharge_settings: { pending?: { amount: string; paymentLink: string } } } }>(gw.app, 'GET', '/auth/local-session', s.cookie);
    expect(view.body.data.recharge_settings.pending).toEqual({ amount: '2000.000000', paymentLink: `/pay/test/${txs[0]!.id}` });
    // The status route (the engine's poll) and the sweep's refresh do not complete it either.
    expect((await call(gw.app, 'GET', `/transaction/status/USD/${txs[0]!.id}`, s.cookie)).body).toEqual({ status: 'pending' });
    await gw.money.sweep();
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
    // A Pay without the checkout's token does nothing; with it, the top-up is credited once.
    const link = txs[0]!.payment_link;
    const press = (token: string) =>
      gw.app.request(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, action: 'pay' }).toString() });
    expect((await press('forged')).status).toBe(403);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
    const token = /name="token" value="([^"]+)"/.exec(await (await gw.app.request(link)).text())?.[1] ?? '';
    await Promise.all([press(token), press(token), press(token)]);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(2_000_000_000n);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('an unpaid top-up expires with nothing credited, and no second one is asked in the same crossing', async () => {
    const s = await gw.session();
    await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '5', target: '10' });
    await gw.money.sweep();
    await gw.db.query(`UPDATE payment_transactions SET expires_at = now() - interval '1 second' WHERE session_id = $1`, [s.data.id]);
    await gw.money.sweep();
    await gw.money.sweep();
    const rows = await gw.db.query<{ status: string }>(`SELECT status FROM payment_transactions WHERE session_id = $1 AND purpose = 'recharge'`, [s.data.id]);
    expect(rows.map((r) => r.status)).toEqual(['expired']);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
  });
});
