/**
 * Events of the money room: deposits started and settled.
 * Listed in the shared catalogue (./catalogue.ts), which re-exports them. Pure: no DOM, no clock.
 */

// ---- money (src/worker/commands/money.ts) ----

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
