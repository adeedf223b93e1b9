/**
 * One interface for every payment provider (docs/gateway.md, "Payments"): the built-in test provider, BTCPay
 * Server (Greenfield) and Stripe Checkout. A provider makes a checkout for a transaction, says its state when
 * asked, and turns its verified webhooks into outcomes; crediting is not its business (./service.ts does it once, through the ledger).
 */
import type { Context } from 'hono';
import type { PaymentStatus, Ticker } from '../../protocol/payments';

export interface TxRecord {
  id: string;
  sessionId: string;
  provider: string;
  ticker: Ticker;
  purpose: 'deposit' | 'recharge';
  amount: string;
  usdMicro: bigint;
  providerRef: string | null;
  paymentLink: string | null;
  checkoutToken: string;
  /** Daimo-style deposits only: the nonce the redeem call must carry, and whether the provider says it was paid. */
  paymentNonce: string | null;
  providerPaid: boolean;
  status: PaymentStatus;
  createdAt: Date;
  expiresAt: Date;
}

export interface CreateCheckout {
  tx: TxRecord;
  /** Where the provider sends the payer back (the wallet page). */
  returnUrl: string;
  /** This gateway's public origin (checkout and webhook URLs). */
  origin: string;
}

export interface CheckoutCreated {
  providerRef: string;
  paymentLink: string;
}

/** A verified provider event: which transaction, what happened, and the provider's own event id (deduplication). */
export interface ProviderEvent {
  eventId: string;
  /** Our transaction id, or the provider's reference to it. */
  txId?: string;
  providerRef?: string;
  outcome: PaymentStatus;
  /** A card saved for later (Stripe): kept for auto-recharge. */
  savedMethod?: { customerRef: string; methodRef: string | null };
}

export interface RechargeOutcome {
  status: PaymentStatus;
  /** The provider's reference (status polls) and, for a top-up that waits for its payer, the checkout to pay it at. */
  providerRef?: string;
  paymentLink?: string;
}

export type WebhookResult = { ok: true; events: ProviderEvent[] } | { ok: false; status: 400 | 401; message: string };

export class ProviderError extends Error {
  override name = 'ProviderError';
}

export interface PaymentProvider {
  readonly name: 'test' | 'btcpay' | 'stripe';
  supports(ticker: Ticker): boolean;
  /** Creates the checkout; throws ProviderError when the provider cannot be reached or refuses. */
  create(input: CreateCheckout): Promise<CheckoutCreated>;
  /** The provider's view of a transaction (status polls, expiry); 'pending' when it cannot tell. */
  status(tx: TxRecord): Promise<PaymentStatus>;
  /** Verifies a webhook delivery (raw body and headers) and reads its events. */
  webhook?(c: Context, rawBody: string): Promise<WebhookResult>;
  /**
   * An auto-recharge top-up (payments/recharge.ts). 'completed' only when money was really taken (Stripe charged the
   * card saved by an earlier checkout); a provider with no saved means of payment answers 'pending' with a checkout
   * the payer must complete (the test provider), and the top-up is credited only once that checkout is paid.
   * null = this provider cannot top up this session.
   */
  recharge?(tx: TxRecord, saved: { customerRef: string; methodRef: string | null } | null, origin: string): Promise<RechargeOutcome | null>;
}
