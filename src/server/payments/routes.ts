/**
 * Payment routes (spec 001 section 7): limits, fiat prices, create, status, the providers' webhooks, the
 * auto-recharge settings and the test provider's checkout page. Inputs are checked with zod at the edge; money
 * moves only in ./store.ts (settlePayment) and ./recharge.ts.
 */
import type { Context, Hono } from 'hono';
import { describeIssues, jsonError, readJson, readLimitedText, type AppEnv } from '../http';
import { formatUnits } from '../money/amounts';
import {
  CreatePaymentSchema,
  DaimoCallbackSchema,
  DEPOSIT_METHODS,
  RechargeSettingsSchema,
  isTicker,
  type FiatPrices,
  type PaymentMethodsResponse,
  type PaymentTransaction,
} from '../../protocol/payments';
import type { Limiter } from '../guards/rate-limit';
import { setRechargeSettings } from './recharge';
import type { Payments } from './service';
import { registerTestCheckout } from './test-provider';

const WEBHOOK_MAX_BYTES = 256 * 1024;

function origin(c: Context): string {
  const u = new URL(c.req.url);
  return u.origin;
}

async function body(c: Context): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  return readJson(c, 64 * 1024);
}

export function registerPaymentRoutes(app: Hono<AppEnv>, payments: Payments, costly: Limiter): void {
  // Each creation calls a provider (an invoice, a checkout session): limited per client address like a reply.
  app.use('/transaction/create/*', costly.middleware);

  app.get('/api/get-fiat-prices', (c) => {
    c.header('Cache-Control', 'private, max-age=60');
    const res: FiatPrices = {
      eurUsd: formatUnits(payments.cfg.eurPerUsdMicro, 6),
      gbpUsd: formatUnits(payments.cfg.gbpPerUsdMicro, 6),
    };
    return c.json(res);
  });

  app.get('/api/payment-methods', (c) => {
    const res: PaymentMethodsResponse = {
      methods: DEPOSIT_METHODS.map((m) => ({
        id: m.id,
        ticker: m.ticker,
        provider:
          m.ticker === 'XNO'
            ? payments.cfg.nano
              ? 'nano'
              : null
            : m.network
              ? // Networked stablecoins go the Daimo way, which only the test provider plays here.
                payments.byName('test') && payments.rate(m.ticker) !== null
                ? 'test'
                : null
              : (payments.providerFor(m.ticker)?.name ?? null),
      })),
      testPayments: payments.byName('test') !== null,
      supportEmail: payments.cfg.supportEmail,
    };
    return c.json(res);
  });

  app.get('/api/transaction/limits/:ticker', async (c) => {
    const ticker = c.req.param('ticker').toUpperCase();
    if (!isTicker(ticker)) return jsonError(c, 404, 'UNKNOWN_TICKER', `Unknown payment method ${ticker.slice(0, 20)}`);
    const found = await payments.limits(c.get('sessionId'), ticker);
    if (!found) return jsonError(c, 404, 'METHOD_UNAVAILABLE', `The payment method ${ticker} is not available on this server`);
    c.header('Cache-Control', 'no-store');
    return c.json(found.view);
  });

  const create = (daimo: boolean) => async (c: Context<AppEnv>) => {
    const ticker = (c.req.param('ticker') ?? '').toUpperCase();
    if (!isTicker(ticker) || ticker === 'XNO') {
      return jsonError(c, 400, 'METHOD_UNAVAILABLE', `The payment method ${ticker.slice(0, 20)} is not available through a checkout`);
    }
    const b = await body(c);
    if (!b.ok) return b.response;
    const parsed = CreatePaymentSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'INVALID_AMOUNT', `Invalid payment amount: ${describeIssues(parsed.error.issues)}`);
    const out = await payments.create(c.get('sessionId'), ticker, parsed.data.amount, origin(c), { daimo });
    c.header('Cache-Control', 'no-store');
    if (!out.ok) return c.json({ error: out.error, message: out.message, ...(out.limit ? { limit: out.limit } : {}) }, out.status);
    const res: PaymentTransaction = {
      id: out.tx.id,
      txId: out.tx.providerRef ?? out.tx.id,
      createdAt: Math.floor(out.tx.createdAt.getTime() / 1000),
      paymentLink: out.tx.paymentLink ?? '',
      ...(out.tx.paymentNonce ? { paymentNonce: out.tx.paymentNonce } : {}),
    };
    return c.json(res);
  };
  app.post('/transaction/create/daimo/:ticker', create(true));
  app.post('/transaction/create/:ticker', create(false));

  app.get('/transaction/status/:ticker/:id', async (c) => {
    const status = await payments.status(c.get('sessionId'), c.req.param('id').slice(0, 100));
    c.header('Cache-Control', 'no-store');
    if (status === null) return jsonError(c, 404, 'NOT_FOUND', 'No such transaction');
    return c.json(status);
  });

  app.post('/transaction/callback/daimo', async (c) => {
    const b = await body(c);
    if (!b.ok) return b.response;
    const parsed = DaimoCallbackSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    const status = await payments.redeem(c.get('sessionId'), parsed.data.payment.id, parsed.data.paymentNonce);
    c.header('Cache-Control', 'no-store');
    if (status === null) return jsonError(c, 409, 'NOT_REDEEMABLE', 'This payment cannot be redeemed');
    return c.json({ success: true, status });
  });

  app.post('/user/recharge-settings', async (c) => {
    const b = await body(c);
    if (!b.ok) return b.response;
    const parsed = RechargeSettingsSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    const out = await setRechargeSettings(payments, c.get('sessionId'), parsed.data);
    if (!out.ok) return jsonError(c, out.status, out.error, out.message);
    return c.json({ success: true, recharge_settings: out.settings });
  });

  for (const name of ['btcpay', 'stripe'] as const) {
    app.post(`/webhooks/${name}`, async (c) => {
      const provider = payments.byName(name);
      if (!provider?.webhook) return jsonError(c, 404, 'NOT_FOUND', `${name} is not configured`);
      // The raw text is what the signature covers; never read past the limit.
      const raw = await readLimitedText(c, WEBHOOK_MAX_BYTES);
      if (raw === null) return jsonError(c, 413, 'PAYLOAD_TOO_LARGE', 'Webhook body too large');
      const verified = await provider.webhook(c, raw);
      if (!verified.ok) return jsonError(c, verified.status, verified.status === 401 ? 'BAD_SIGNATURE' : 'BAD_REQUEST', verified.message);
      await payments.applyEvents(name, verified.events);
      return c.json({ received: true });
    });
  }

  if (payments.byName('test')) {
    registerTestCheckout(app, payments);
  }
}
