/**
 * Card payments through Stripe Checkout, by secret key, over its REST API (form-encoded requests; the scheme is
 * small enough that the stripe package, and its bundle, are not needed). A deposit is a Checkout Session in USD or
 * EUR that saves the card for off-session use, which auto-recharge then charges with a PaymentIntent.
 *
 * Webhooks are verified by the Stripe-Signature header: `t=<unix seconds>,v1=<hex>`, v1 being HMAC-SHA256 of
 * `${t}.${raw body}` keyed with the endpoint's signing secret; a timestamp more than 5 minutes away is refused
 * (replay). The event id (evt_...) is what deliveries are deduplicated on.
 */
import { ceilDiv } from '../money/amounts';
import type { PaymentStatus } from '../../protocol/payments';
import type { StripeConfig } from './config';
import { callJson, hmacHex, obj, sameHex, str } from './http';
import { ProviderError, type PaymentProvider, type ProviderEvent, type TxRecord } from './types';

export const STRIPE_TOLERANCE_S = 300;

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Verifies a Stripe-Signature header against the raw body; exported for the tests' fake Stripe. */
export function verifyStripeSignature(header: string, raw: string, secret: string, nowS: number): boolean {
  let t = '';
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.split('=', 2);
    if (k === 't' && v) t = v;
    if (k === 'v1' && v) v1.push(v);
  }
  if (!/^\d{1,12}$/.test(t) || v1.length === 0) return false;
  if (Math.abs(nowS - Number(t)) > STRIPE_TOLERANCE_S) return false;
  const expected = hmacHex(secret, `${t}.${raw}`);
  return v1.some((s) => sameHex(s, expected));
}

/** Amount in the smallest unit of the charged currency: USD cents, or EUR cents for the EUR card. */
function minorUnits(tx: TxRecord): { currency: string; amount: string } {
  const currency = tx.ticker === 'EUR' ? 'eur' : 'usd';
  const [whole = '0', frac = ''] = tx.amount.split('.');
  const cents = BigInt(whole) * 100n + BigInt((frac + '00').slice(0, 2));
  // Card amounts have at most 2 decimals (limits are checked first); a stray third decimal rounds up, never down.
  const extra = frac.length > 2 && /[1-9]/.test(frac.slice(2)) ? 1n : 0n;
  return { currency, amount: (tx.ticker === 'USD' ? ceilDiv(tx.usdMicro, 10_000n) : cents + extra).toString() };
}

function outcomeOfSession(s: Record<string, unknown>): PaymentStatus {
  if (str(s.status) === 'expired') return 'expired';
  if (str(s.payment_status) === 'paid' || str(s.payment_status) === 'no_payment_required') return 'completed';
  return 'pending';
}

export function stripeProvider(cfg: StripeConfig): PaymentProvider {
  const headers = { authorization: `Bearer ${cfg.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' };
  return {
    name: 'stripe',
    supports: (t) => t === 'USD' || t === 'EUR',
    async create({ tx, returnUrl }) {
      const { currency, amount } = minorUnits(tx);
      const body = await callJson(
        `${cfg.apiUrl}/v1/checkout/sessions`,
        {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': tx.id },
          body: form({
            mode: 'payment',
            success_url: returnUrl,
            cancel_url: returnUrl,
            client_reference_id: tx.id,
            'metadata[tx_id]': tx.id,
            customer_creation: 'always',
            'payment_intent_data[setup_future_usage]': 'off_session',
            'payment_intent_data[metadata][tx_id]': tx.id,
            'line_items[0][quantity]': '1',
            'line_items[0][price_data][currency]': currency,
            'line_items[0][price_data][unit_amount]': amount,
            'line_items[0][price_data][product_data][name]': 'Parley balance',
          }),
        },
        'Stripe Checkout Session',
      );
      const id = str(body.id);
      const url = str(body.url);
      if (!id || !url) throw new ProviderError('Stripe Checkout Session: no id or url in the answer');
      return { providerRef: id, paymentLink: url };
    },
    async status(tx) {
      if (!tx.providerRef) return 'pending';
      if (tx.providerRef.startsWith('pi_')) {
        const pi = await callJson(`${cfg.apiUrl}/v1/payment_intents/${encodeURIComponent(tx.providerRef)}`, { headers }, 'Stripe PaymentIntent');
        return str(pi.status) === 'succeeded' ? 'completed' : str(pi.status) === 'canceled' ? 'failed' : 'pending';
      }
      const s = await callJson(`${cfg.apiUrl}/v1/checkout/sessions/${encodeURIComponent(tx.providerRef)}`, { headers }, 'Stripe Checkout Session');
      return outcomeOfSession(s);
    },
    async webhook(c, raw) {
      const header = c.req.header('stripe-signature') ?? '';
      if (!verifyStripeSignature(header, raw, cfg.webhookSecret, Math.floor(Date.now() / 1000))) {
        return { ok: false, status: 401, message: 'Bad Stripe-Signature' };
      }
      let event: Record<string, unknown> | undefined;
      try {
        event = obj(JSON.parse(raw));
      } catch {
        event = undefined;
      }
      const o = obj(obj(event?.data)?.object);
      const id = str(event?.id);
      const type = str(event?.type) ?? '';
      if (!event || !o || !id) return { ok: false, status: 400, message: 'Webhook body is not a Stripe event' };
      const txId = str(obj(o.metadata)?.tx_id) ?? str(o.client_reference_id);
      let outcome: PaymentStatus | null = null;
      if (type === 'checkout.session.completed' || type === 'checkout.session.async_payment_succeeded') outcome = outcomeOfSession(o);
      else if (type === 'checkout.session.async_payment_failed') outcome = 'failed';
      else if (type === 'checkout.session.expired') outcome = 'expired';
      else if (type === 'payment_intent.succeeded') outcome = 'completed';
      else if (type === 'payment_intent.payment_failed') outcome = 'failed';
      if (outcome === null || (!txId && !str(o.id))) return { ok: true, events: [] };
      const e: ProviderEvent = { eventId: id, outcome };
      if (txId) e.txId = txId;
      const ref = str(o.id);
      if (ref) e.providerRef = ref;
      const customer = str(o.customer);
      if (type.startsWith('checkout.session') && customer) e.savedMethod = { customerRef: customer, methodRef: null };
      if (type === 'payment_intent.succeeded' && customer) e.savedMethod = { customerRef: customer, methodRef: str(o.payment_method) ?? null };
      return { ok: true, events: [e] };
    },
    async recharge(tx, saved) {
      if (!saved?.methodRef) return null;
      const pi = await callJson(
        `${cfg.apiUrl}/v1/payment_intents`,
        {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': tx.id },
          body: form({
            amount: ceilDiv(tx.usdMicro, 10_000n).toString(),
            currency: 'usd',
            customer: saved.customerRef,
            payment_method: saved.methodRef,
            off_session: 'true',
            confirm: 'true',
            'metadata[tx_id]': tx.id,
          }),
        },
        'Stripe PaymentIntent',
      );
      const status = str(pi.status);
      const outcome: PaymentStatus = status === 'succeeded' ? 'completed' : status === 'canceled' || status === 'requires_payment_method' ? 'failed' : 'pending';
      // The PaymentIntent's id: a top-up still processing is asked about by its status polls and webhooks.
      const ref = str(pi.id);
      return ref ? { status: outcome, providerRef: ref } : { status: outcome };
    },
  };
}
