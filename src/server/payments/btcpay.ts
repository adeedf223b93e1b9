/**
 * BTCPay Server through its Greenfield API (self-hosted; BTC, Lightning, LTC, XMR and more). A deposit is an
 * invoice priced in USD (the transaction's USD value, so the credit is exactly what the invoice settles for; BTCPay
 * converts to the coin at its own rate) limited to the chosen coin's payment method. Webhooks are verified by
 * their BTCPay-Sig header (HMAC-SHA256 of the raw body with the webhook's secret); a redelivery carries its
 * original delivery id, which is the event id we deduplicate on.
 */
import { formatUsdMicro } from '../money/amounts';
import type { PaymentStatus, Ticker } from '../../protocol/payments';
import type { BtcpayConfig } from './config';
import { callJson, hmacHex, obj, sameHex, str } from './http';
import { ProviderError, type PaymentProvider, type ProviderEvent, type TxRecord } from './types';

/** Greenfield payment method ids (BTCPay 2.x) by ticker. */
const METHOD_IDS: Partial<Record<Ticker, string>> = {
  BTC: 'BTC-CHAIN',
  'BTC-LN': 'BTC-LN',
  LTC: 'LTC-CHAIN',
  'LTC-MWEB': 'LTC-CHAIN',
  XMR: 'XMR-CHAIN',
  DOGE: 'DOGE-CHAIN',
  DASH: 'DASH-CHAIN',
  BCH: 'BCH-CHAIN',
  ZEC: 'ZEC-CHAIN',
};

export function statusOfInvoice(status: string | undefined): PaymentStatus {
  switch (status) {
    case 'Settled':
      return 'completed';
    case 'Expired':
      return 'expired';
    case 'Invalid':
      return 'failed';
    default:
      return 'pending';
  }
}

const EVENT_OUTCOMES: Record<string, PaymentStatus> = {
  InvoiceSettled: 'completed',
  InvoiceExpired: 'expired',
  InvoiceInvalid: 'failed',
};

export function btcpayProvider(cfg: BtcpayConfig): PaymentProvider {
  const base = `${cfg.url}/api/v1/stores/${encodeURIComponent(cfg.storeId)}/invoices`;
  const headers = { authorization: `token ${cfg.apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  return {
    name: 'btcpay',
    supports: (t) => cfg.tickers.includes(t),
    async create({ tx, returnUrl }) {
      const method = METHOD_IDS[tx.ticker] ?? tx.ticker;
      const body = await callJson(
        base,
        {
          method: 'POST',
          headers,
          body: JSON.stringify({
            amount: formatUsdMicro(tx.usdMicro),
            currency: 'USD',
            metadata: { orderId: tx.id, txId: tx.id },
            checkout: { redirectURL: returnUrl, paymentMethods: [method], expirationMinutes: 30 },
          }),
        },
        'BTCPay invoice',
      );
      const id = str(body.id);
      const link = str(body.checkoutLink);
      if (!id || !link) throw new ProviderError('BTCPay invoice: no id or checkoutLink in the answer');
      return { providerRef: id, paymentLink: link };
    },
    async status(tx: TxRecord) {
      if (!tx.providerRef) return 'pending';
      const body = await callJson(`${base}/${encodeURIComponent(tx.providerRef)}`, { headers }, 'BTCPay invoice status');
      return statusOfInvoice(str(body.status));
    },
    async webhook(c, raw) {
      const sig = c.req.header('btcpay-sig') ?? '';
      const given = sig.startsWith('sha256=') ? sig.slice(7) : '';
      if (!given || !sameHex(given, hmacHex(cfg.webhookSecret, raw))) return { ok: false, status: 401, message: 'Bad BTCPay-Sig signature' };
      let body: Record<string, unknown> | undefined;
      try {
        body = obj(JSON.parse(raw));
      } catch {
        body = undefined;
      }
      if (!body) return { ok: false, status: 400, message: 'Webhook body is not a JSON object' };
      const type = str(body.type) ?? '';
      const outcome = EVENT_OUTCOMES[type];
      const invoiceId = str(body.invoiceId);
      const eventId = str(body.originalDeliveryId) ?? str(body.deliveryId);
      if (!outcome || !invoiceId || !eventId) return { ok: true, events: [] };
      const meta = obj(body.metadata);
      const event: ProviderEvent = { eventId: `${eventId}:${type}`, providerRef: invoiceId, outcome };
      const txId = str(meta?.txId) ?? str(meta?.orderId);
      if (txId) event.txId = txId;
      return { ok: true, events: [event] };
    },
  };
}
