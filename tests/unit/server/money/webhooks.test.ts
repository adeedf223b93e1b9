/**
 * BTCPay Server and Stripe against fake providers on loopback: checkouts as each API expects them, webhooks
 * verified by signature, each payment credited exactly once however its events arrive, and a crash between the
 * provider's confirmation and the credit healed by the retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger, type CreditRequest } from '../../../../src/server/money/ledger';
import type { PaymentTransaction } from '../../../../src/protocol/payments';
import { expectLedgerBalanced } from '../money-checks';
import { btcpaySignature, startFakeBtcpay, startFakeStripe, stripeSignature, type FakeProvider } from './fake-providers';
import { balanceOf, call, creditsOf, moneyGateway, type MoneyGateway } from './helpers';

const BTCPAY_SECRET = 'btcpay-webhook-secret';
const STRIPE_SECRET = 'whsec_test_secret';

/** A ledger whose next `failures` credits throw after the provider confirmed (a crash before the credit). */
class CrashingLedger extends Ledger {
  failures = 0;
  override async credit(sessionId: string, req: CreditRequest) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('simulated crash before the credit');
    }
    return super.credit(sessionId, req);
  }
}

let btcpay: FakeProvider;
let stripe: FakeProvider;
let gw: MoneyGateway;
let ledger: CrashingLedger;

beforeAll(async () => {
  btcpay = await startFakeBtcpay('btcpay-key');
  stripe = await startFakeStripe('sk_test_key');
  gw = await moneyGateway(
    {
      PARLEY_BTCPAY_URL: btcpay.url,
      PARLEY_BTCPAY_KEY: 'btcpay-key',
      PARLEY_BTCPAY_STORE: 'store1',
      PARLEY_BTCPAY_WEBHOOK_SECRET: BTCPAY_SECRET,
      PARLEY_BTCPAY_METHODS: 'BTC,XMR',
      PARLEY_PAYMENT_RATES: '{"BTC":"50000","XMR":"150"}',
      PARLEY_STRIPE_KEY: 'sk_test_key',
      PARLEY_STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      PARLEY_STRIPE_API_URL: stripe.url,
      PARLEY_PUBLIC_URL: 'https://parley.example',
    },
    { ledger: (db, price) => (ledger = new CrashingLedger(db, { nanoPriceUsdMicro: price })) },
  );
});
afterAll(async () => {
  await gw.close();
  await btcpay.close();
  await stripe.close();
});

function btcpayHook(body: Record<string, unknown>, secret = BTCPAY_SECRET) {
  const raw = JSON.stringify(body);
  return gw.app.request('/webhooks/btcpay', { method: 'POST', headers: { 'content-type': 'application/json', 'btcpay-sig': btcpaySignature(secret, raw) }, body: raw });
}

function stripeHook(body: Record<string, unknown>, sig?: string) {
  const raw = JSON.stringify(body);
  return gw.app.request('/webhooks/stripe', { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': sig ?? stripeSignature(STRIPE_SECRET, raw) }, body: raw });
}

describe('BTCPay Server (Greenfield)', () => {
  it('without a real provider the test one is off: USD goes to Stripe, BTC to BTCPay, ZEC is unavailable', async () => {
    expect(gw.money.payments.providers.map((p) => p.name)).toEqual(['stripe', 'btcpay']);
    const s = await gw.session();
    expect((await call(gw.app, 'GET', '/api/transaction/limits/BTC', s.cookie)).body.provider).toBe('btcpay');
    expect((await call(gw.app, 'GET', '/api/transaction/limits/USD', s.cookie)).body.provider).toBe('stripe');
    expect((await call(gw.app, 'POST', '/transaction/create/ZEC', s.cookie, { amount: '1' })).status).toBe(400);
  });

  it('an invoice in USD for the chosen coin; 20 signed deliveries out of order credit once; bad signatures nothing', async () => {
    const s = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/BTC', s.cookie, { amount: '0.0002' });
    expect(made.status).toBe(200);
    const invoiceId = made.body.txId;
    expect(made.body.paymentLink).toBe(`${btcpay.url}/i/${invoiceId}`);
    const sent = JSON.parse(btcpay.requests.at(-1)!.body) as Record<string, { redirectURL?: string; paymentMethods?: string[] } | string>;
    expect(sent.amount).toBe('10.000000');
    expect(sent.currency).toBe('USD');
    expect(sent.checkout).toMatchObject({ redirectURL: 'https://parley.example/wallet', paymentMethods: ['BTC-CHAIN'] });

    const base = { webhookId: 'wh1', storeId: 'store1', invoiceId, metadata: { orderId: made.body.id, txId: made.body.id } };
    expect((await btcpayHook({ ...base, deliveryId: 'x', type: 'InvoiceSettled' }, 'wrong-secret')).status).toBe(401);
    const noSig = await gw.app.request('/webhooks/btcpay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...base, type: 'InvoiceSettled' }) });
    expect(noSig.status).toBe(401);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);

    const deliveries: Record<string, unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      const type = i % 5 === 0 ? 'InvoiceExpired' : i % 3 === 0 ? 'InvoiceProcessing' : 'InvoiceSettled';
      deliveries.push({ ...base, deliveryId: `d${i}`, originalDeliveryId: i % 2 ? `d${i - 1}` : `d${i}`, isRedelivery: i % 2 === 1, type });
    }
    deliveries.reverse();
    const answers = await Promise.all(deliveries.map((d) => btcpayHook(d)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(10_000_000n);
    expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
    expect((await call(gw.app, 'GET', `/transaction/status/BTC/${made.body.id}`, s.cookie)).body).toEqual({ status: 'completed' });
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('a crash between the confirmation and the credit: the retried delivery credits once', async () => {
    const s = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/XMR', s.cookie, { amount: '0.1' });
    const hook = { deliveryId: 'c1', webhookId: 'wh1', storeId: 'store1', invoiceId: made.body.txId, type: 'InvoiceSettled' };
    ledger.failures = 1;
    expect((await btcpayHook(hook)).status).toBe(500);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);
    expect((await call(gw.app, 'GET', `/transaction/status/XMR/${made.body.id}`, s.cookie)).body).toEqual({ status: 'pending' });
    expect((await btcpayHook({ ...hook, deliveryId: 'c2', originalDeliveryId: 'c1', isRedelivery: true })).status).toBe(200);
    expect((await btcpayHook(hook)).status).toBe(200);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(15_000_000n);
    expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
  });

  it('the status poll asks BTCPay while pending, and a later webhook adds nothing', async () => {
    const s = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/BTC', s.cookie, { amount: '0.0001' });
    expect((await call(gw.app, 'GET', `/transaction/status/BTC/${made.body.id}`, s.cookie)).body).toEqual({ status: 'pending' });
    btcpay.state.get(made.body.txId)!.status = 'Settled';
    expect((await call(gw.app, 'GET', `/transaction/status/BTC/${made.body.id}`, s.cookie)).body).toEqual({ status: 'completed' });
    await btcpayHook({ deliveryId: 'late', webhookId: 'wh1', storeId: 'store1', invoiceId: made.body.txId, type: 'InvoiceSettled' });
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(5_000_000n);
  });
});

describe('Stripe Checkout', () => {
  it('a Checkout Session in cents that saves the card; signed events credit once; stale or forged signatures nothing', async () => {
    const s = await gw.session();
    const made = await call<PaymentTransaction>(gw.app, 'POST', '/transaction/create/USD', s.cookie, { amount: '12.34' });
    expect(made.status).toBe(200);
    const form = Object.fromEntries(new URLSearchParams(stripe.requests.at(-1)!.body));
    expect(form).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '1234',
      'payment_intent_data[setup_future_usage]': 'off_session',
      client_reference_id: made.body.id,
      success_url: 'https://parley.example/wallet',
    });
    const session = { id: made.body.txId, object: 'checkout.session', status: 'complete', payment_status: 'paid', customer: 'cus_1', metadata: { tx_id: made.body.id } };
    const event = { id: 'evt_1', type: 'checkout.session.completed', data: { object: session } };
    const raw = JSON.stringify(event);
    expect((await stripeHook(event, stripeSignature('whsec_other', raw))).status).toBe(401);
    expect((await stripeHook(event, stripeSignature(STRIPE_SECRET, raw, Math.floor(Date.now() / 1000) - 3600))).status).toBe(401);
    expect((await stripeHook(event, 'garbage')).status).toBe(401);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(0n);

    const events = Array.from({ length: 20 }, (_, i) =>
      i % 4 === 3 ? { id: `evt_exp_${i}`, type: 'checkout.session.expired', data: { object: { ...session, status: 'expired', payment_status: 'unpaid' } } } : event,
    );
    for (const e of events.reverse()) expect((await stripeHook(e)).status).toBe(200);
    const pi = { id: 'pi_1', object: 'payment_intent', status: 'succeeded', customer: 'cus_1', payment_method: 'pm_1', metadata: { tx_id: made.body.id } };
    expect((await stripeHook({ id: 'evt_pi', type: 'payment_intent.succeeded', data: { object: pi } })).status).toBe(200);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(12_340_000n);
    expect(await creditsOf(gw.db, s.data.id, 'payment:')).toBe(1);
    await expectLedgerBalanced(gw.db, s.data.id);

    // The saved card pays an auto-recharge: below the threshold, one PaymentIntent per crossing.
    expect((await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '20', target: '30' })).status).toBe(200);
    await gw.money.sweep();
    await gw.money.sweep();
    const intents = stripe.requests.filter((r) => r.path === '/v1/payment_intents');
    expect(intents).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(intents[0]!.body))).toMatchObject({ amount: '1766', customer: 'cus_1', payment_method: 'pm_1', off_session: 'true', confirm: 'true' });
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(30_000_000n);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('refuses auto-recharge without a saved card, with the error the view maps to its notice', async () => {
    const s = await gw.session();
    const r = await call(gw.app, 'POST', '/user/recharge-settings', s.cookie, { enabled: true, threshold: '1', target: '5' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('RECHARGE_UNAVAILABLE');
  });
});
