/**
 * The engine's money room (src/worker/rooms/money/commands.ts): the wallet view and the money commands.
 * Joined into the engine API by ./engine.ts, which re-exports them.
 */
import type { FaucetStatus } from './faucet';
import type { FiatCurrency, Invitation, PaymentLimits, PaymentMethodsResponse, PaymentStatus, PaymentTransaction } from './payments';
import type { ActionResult } from './engine';

/** One deposit as the wallet shows it (a record of the wallet's list; the one the Deposit flow shows is WalletView.transactionData). */
export interface PaymentView {
  id: string;
  ticker: string;
  amount: string;
  txId: string;
  /** Seconds, as the gateway gave it. */
  createdAt: number;
  paymentLink: string;
  /** Daimo-style deposits: redeemed with this nonce once paid. */
  paymentNonce: string | null;
  /** The payment store's selectedNetwork: the chain of a stablecoin deposit (spec 001 sections 3 and 9), or null. */
  network: string | null;
  /** The payment store's usdEquivalentValue: the amount in USD when it was made (2 decimals), or null when unknown. */
  usdEquivalent: string | null;
  status: PaymentStatus;
  /** When this engine started it (ms): polling and the 30-minute expiry count from here. */
  startedAt: number;
  settledAt: number | null;
}
export type NanoSocketStateView = 'idle' | 'connecting' | 'connected' | 'closed' | 'error';
/**
 * The payment store's nano receiving flag (spec 001 section 4): nano the user receives goes to the session's deposit
 * address ('deposit', the default) or to the user's own account, the session's nanoReturnAddress ('return').
 * Changing it clears pendingTransaction (WalletView.pending).
 */
export type NanoReceiving = 'deposit' | 'return';

/** The money room's live state (src/worker/rooms/money/commands.ts). */
export interface WalletView {
  /** The deposit being paid (pendingTransaction), newest first if several. */
  pending: PaymentView | null;
  /** Latest deposits, newest first. */
  payments: PaymentView[];
  nano: { state: NanoSocketStateView; node: string | null; address: string | null; lastDeposit: { hash: string; amount: string; at: number } | null };
  /** The nano receiving flag; the return address itself is the session's nanoReturnAddress. */
  nanoReceiving: NanoReceiving;
  /**
   * The payment store's transactionData: the deposit the Deposit flow made last in this engine, with its live status
   * (every tab's dialog shows the same one, and a dialog opened again offers to go back to it while it is pending).
   * Unlike `pending`, the receiving flag does not clear it. Engine memory, like the spec's store.
   */
  transactionData: PaymentView | null;
  /** The payment store's selectedCurrency: the fiat currency the Deposit flow shows amounts in (USD by default). */
  selectedCurrency: FiatCurrency;
  /**
   * The gateway's account-merge-check for this session (spec 001 section 7), asked when the session changes or its
   * balance rises above the paid-use threshold; null until answered (or when the call failed: logged only).
   */
  account: AccountCheck | null;
}
/** GET /auth/account-merge-check: canMigrate = worth carrying to another browser and no recovery code saved yet. */
export interface AccountCheck {
  canMigrate: boolean;
  hasRecoveryCode: boolean;
}
export interface MoneyQueries {
  wallet: { query: { kind: 'wallet' }; result: WalletView };
}

/** Fiat rates of the payment store (spec 001 section 3), cached 60 s. */
export interface FiatRatesView {
  eurPerUsd: number;
  gbpPerUsd: number;
  timestamp: number;
  state: 'loaded' | 'error';
}

export type MoneyResult<T> = ({ ok: true } & T) | { ok: false; error: string };

export interface InvitationInput {
  amount: string;
  currency: 'USD' | 'XNO';
  recipientName: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * Money (src/worker/rooms/money/commands.ts): deposits, nano, invitations, auto-recharge, recovery codes. Failures have
 * already raised the spec's notice in the engine; `error` is its title (or the validation message).
 */
export interface MoneyHandlers {
  paymentMethods(): Promise<PaymentMethodsResponse | null>;
  paymentLimits(ticker: string): Promise<PaymentLimits | null>;
  fiatRates(): Promise<FiatRatesView>;
  /** USD per XNO; 1 when the price cannot be had (spec 001 section 7). */
  nanoPrice(): Promise<number>;
  /** With a network (USDC or USDT on BASE, ...), a Daimo-style deposit: paid, then redeemed by the engine. */
  createPayment(ticker: string, amount: string, network?: string): Promise<MoneyResult<{ transaction: PaymentTransaction }>>;
  /** The session's nano deposit address (made on first use); starts the deposit websocket. */
  nanoDepositAddress(): Promise<MoneyResult<{ address: string }>>;
  /**
   * Sets the nano receiving flag (and, for 'return', the session's nanoReturnAddress, checked by the gateway).
   * Clears pendingTransaction: a checkout left open keeps being polled, so a late payment is still credited.
   */
  setNanoReceiving(to: NanoReceiving, returnAddress?: string): Promise<ActionResult>;
  /** Sets the payment store's selectedCurrency (every tab). */
  setSelectedCurrency(currency: FiatCurrency): Promise<ActionResult>;
  convertNanoToUsd(amount?: string): Promise<MoneyResult<{ amount: string }>>;
  /** The nano faucet here (src/protocol/faucet.ts); null when the gateway cannot be asked. */
  faucetStatus(): Promise<FaucetStatus | null>;
  /** Claims the session's free 0.1 XNO; a refusal raises a notice saying why. */
  claimFaucet(): Promise<MoneyResult<{ amount: string }>>;
  checkReceivables(): Promise<MoneyResult<{ receivable: string }>>;
  getRepresentative(): Promise<MoneyResult<{ representative: string }>>;
  changeRepresentative(representative: string): Promise<MoneyResult<{ representative: string }>>;
  setRechargeSettings(settings: { enabled: boolean; threshold: string; target: string }): Promise<ActionResult>;
  setDisplayCurrency(currency: 'USD' | 'XNO'): Promise<ActionResult>;
  listInvitations(): Promise<MoneyResult<{ invitations: Invitation[] }>>;
  createInvitation(input: InvitationInput): Promise<MoneyResult<{ invitation: Invitation }>>;
  updateInvitation(redeemCode: string, changes: Partial<InvitationInput>): Promise<MoneyResult<{ invitation: Invitation }>>;
  redeemInvitation(redeemCode: string): Promise<MoneyResult<{ amount: string; currency: 'USD' | 'XNO' }>>;
  deleteInvitation(redeemCode: string): Promise<ActionResult>;
  /** A new recovery code for this session (shown once; the previous one stops working, every other browser is signed out). */
  createRecoveryCode(): Promise<MoneyResult<{ code: string }>>;
  /** Signs every other browser out of this session; this one stays signed in (the recovery code keeps working). */
  signOutOtherBrowsers(): Promise<ActionResult>;
  /** Opens the session of a recovery code in this browser. */
  recoverSession(code: string): Promise<ActionResult>;
  accountMergeCheck(): Promise<AccountCheck | null>;
}
