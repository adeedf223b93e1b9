/**
 * Events of the money room: deposits started and settled. Each is declared once in `moneyEvents` below
 * (./define.ts); the catalogue (./catalogue.ts) joins it. Pure: no DOM, no clock.
 */
import { num, oneOf, optional, str } from './checks';
import { defineEvent, NOTHING, shape } from './define';

// ---- money (src/worker/rooms/money/commands.ts) ----

/**
 * A deposit was created at the gateway (POST /transaction/create/{ticker}): the engine polls its status until it
 * settles or expires (30 minutes), and an engine starting later picks it up from the log (DESIGN rule 6).
 */
export interface PaymentStartedV1 {
  /** The gateway's transaction id. */
  id: string;
  ticker: string;
  /** As the user typed it, in the ticker's unit. */
  amount: string;
  /** The provider's reference (invoice or checkout session). */
  txId: string;
  /** Seconds (spec 001 section 3). */
  createdAt: number;
  paymentLink: string;
  /** Daimo-style deposits: the nonce the redeem call carries (absent otherwise). */
  paymentNonce?: string;
  /**
   * The payment store's selectedNetwork (spec 001 section 3): the chain of a stablecoin deposit (BASE, OPTIMISM,
   * ...; spec 001 section 9). Absent for methods without a network, and on events written before it was kept.
   */
  network?: string;
  /** The payment store's usdEquivalentValue: the amount's USD value when it was made, 2 decimals. Absent: unknown. */
  usdEquivalent?: string;
  at: number;
}
/** A deposit ended: completed (credited), failed, or expired (by the provider or after 30 minutes of polling). */
export interface PaymentSettledV1 {
  id: string;
  status: 'completed' | 'failed' | 'expired';
  at: number;
}

// ---- the declarations ----

// Payments are no conversation's data: the money room follows these events itself.
export const moneyEvents = {
  /**
   * `network` (the payment store's selectedNetwork: a stablecoin's chain) and `usdEquivalent` (usdEquivalentValue,
   * 2 decimals) are optional: events written before them replay with both unknown (null on the wallet view).
   */
  'payment.started': defineEvent({
    version: 1,
    payload: shape<PaymentStartedV1>({
      id: str, ticker: str, amount: str, txId: str, createdAt: num, paymentLink: str, paymentNonce: optional(str), network: optional(str), usdEquivalent: optional(str), at: num,
    }),
    touches: () => NOTHING,
  }),
  /** The first outcome stands in the history. */
  'payment.settled': defineEvent({
    version: 1,
    payload: shape<PaymentSettledV1>({ id: str, status: oneOf('completed', 'failed', 'expired'), at: num }),
    touches: () => NOTHING,
  }),
};
