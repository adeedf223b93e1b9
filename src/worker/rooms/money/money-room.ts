/**
 * The money room's state and pipelines in the engine: the deposits folded from the log, one polling pipeline per
 * pending deposit (restarted from the log when an engine starts: DESIGN rule 6), the nano deposit websocket and
 * the 60-second fiat-rate cache. Commands (rooms/money/commands.ts) and the `wallet` query read and drive it.
 */
import { BehaviorSubject } from 'rxjs';
import { makeEvent } from '../../../events/catalogue';
import { upcast } from '../../../events/upcasters';
import { applyPayments, EMPTY_PAYMENTS, foldPayments, pendingPayments, type PaymentRecord, type PaymentsState } from '../../../projections/payments';
import type { AccountCheck, FiatRatesView, NanoReceiving, WalletView } from '../../../protocol/engine';
import { DEPOSIT_TEXT, DEPOSIT_TOPIC, MONEY_DURATION } from '../../../protocol/money-text';
import { formatMoney, formatXno } from '../../../protocol/money-format';
import { FIAT_RATES_CACHE_MS, type FiatCurrency, type PaymentTransaction } from '../../../protocol/payments';
import type { EngineCore, Room } from '../../core';
import { money } from './money-client';
import { NanoDepositSocket, type NanoSend, type SocketFactory, type SocketLike } from './nano-socket';
import { abortableSleep, pollPayment, type PollAnswer, type PollHost } from './payment-poller';

const PAYMENT_EVENTS = ['payment.started', 'payment.settled'];
/** A send the node has not confirmed yet is asked about again this often, this many times. */
const CONFIRM_RETRY_MS = 2_000;
const CONFIRM_RETRIES = 15;

function formatRaw(raw: bigint): string {
  const whole = raw / 10n ** 30n;
  const frac = ((raw % 10n ** 30n) / 10n ** 24n).toString().padStart(6, '0');
  return `${whole}.${frac}`;
}

export class MoneyRoom implements Room {
  readonly wallet$ = new BehaviorSubject<WalletView>({ pending: null, payments: [], nano: { state: 'idle', node: null, address: null, lastDeposit: null }, nanoReceiving: 'deposit', transactionData: null, selectedCurrency: 'USD', account: null });
  /** The id of the payment store's transactionData (the deposit the Deposit flow made last). */
  private transactionId: string | null = null;
  private payments: PaymentsState = EMPTY_PAYMENTS;
  /** Deposits started at or before this time (ms) are no longer the pendingTransaction (the receiving flag changed). */
  private pendingClearedAt = 0;
  private readonly pollers = new Map<string, AbortController>();
  private socket: NanoDepositSocket | null = null;
  /** The address the socket watches. */
  private watching: string | null = null;
  private fiat: FiatRatesView | null = null;
  private readonly stopped = new AbortController();
  /** Failures that already raised their own notice (a Daimo redeem). */
  private readonly quietFailures = new Set<string>();
  /** The session (and whether it held a balance) the last account-merge-check was asked for. */
  private accountAskedFor: string | null = null;
  /** Bumped by every answer or local change of `account`, so a slower, older answer is dropped. */
  private accountVersion = 0;

  constructor(
    private readonly core: EngineCore,
    private readonly openSocket: SocketFactory | null = typeof WebSocket === 'undefined' ? null : (url) => new WebSocket(url) as unknown as SocketLike,
  ) {
    void core.whenStarted().then(() => this.resume());
    core.events$.subscribe((events) => {
      let next = this.payments;
      for (const e of events) next = applyPayments(next, e);
      if (next !== this.payments) this.setPayments(next);
    });
    // The account-merge-check (spec 001 section 7) for each session, and again once its balance rises above the
    // paid-use threshold: a user with money and no recovery code is asked to save one (src/ui/account/Banners.tsx).
    core.session$.subscribe((v) => {
      if (!v.session) return;
      const key = `${v.session.id}:${v.canUsePaidModels}`;
      if (key === this.accountAskedFor) return;
      // Another session (recovered, or a new one after a sign-out): what was known of the old one no longer holds.
      if (!this.accountAskedFor?.startsWith(`${v.session.id}:`) && this.wallet$.value.account) {
        this.accountVersion++;
        this.wallet$.next({ ...this.wallet$.value, account: null });
      }
      this.accountAskedFor = key;
      void this.checkAccount();
    });
    // A session with a deposit address watches it from the start (a send made while the wallet was closed counts).
    core.session$.subscribe((v) => {
      const address = v.session?.nanoDepositAddress;
      if (!address || !this.openSocket || address === this.watching) return;
      // A recovered session brings its own address: stop watching the old one. Marked first, so that the session
      // refreshes that follow do not ask again while this one is on its way (or when no node websocket is set up).
      this.watching = address;
      this.socket?.stop();
      this.socket = null;
      void this.watchNano();
    });
  }

  /** The deposits in the log; pending ones are polled again. */
  private async resume(): Promise<void> {
    if (!this.core.storageOk) return;
    const rows = await this.core.db.events.where('type').anyOf(PAYMENT_EVENTS).sortBy('seq');
    this.setPayments(foldPayments(rows.map((r) => upcast(r))));
  }

  private setPayments(state: PaymentsState): void {
    this.payments = state;
    const pending = pendingPayments(state);
    for (const r of pending) if (!this.pollers.has(r.id)) this.poll(r);
    const transactionData = this.transactionId === null ? null : (state.records.find((r) => r.id === this.transactionId) ?? null);
    this.wallet$.next({ ...this.wallet$.value, pending: this.pendingTransaction(pending), payments: [...state.records], transactionData });
  }

  /** The payment store's selectedCurrency (spec 001 section 3). */
  setSelectedCurrency(currency: FiatCurrency): void {
    if (currency !== this.wallet$.value.selectedCurrency) this.wallet$.next({ ...this.wallet$.value, selectedCurrency: currency });
  }

  /** The newest pending deposit started after the last change of the receiving flag. */
  private pendingTransaction(pending: readonly PaymentRecord[]): PaymentRecord | null {
    return pending.find((r) => r.startedAt > this.pendingClearedAt) ?? null;
  }

  /**
   * The payment store's nano receiving flag (spec 001 section 4): changing it clears pendingTransaction. The deposit
   * itself is not cancelled: its poll goes on, so a checkout paid later is still credited and kept in the history.
   */
  setNanoReceiving(to: NanoReceiving): void {
    if (to === this.wallet$.value.nanoReceiving) return;
    this.pendingClearedAt = Date.now();
    this.wallet$.next({ ...this.wallet$.value, nanoReceiving: to, pending: null });
  }

  /** Asks the gateway's account-merge-check; failures are logged only (spec 001 section 8). */
  async checkAccount(): Promise<AccountCheck | null> {
    const version = ++this.accountVersion;
    const r = await money.mergeCheck();
    if (this.stopped.signal.aborted) return null;
    if (!r.ok) {
      console.warn('account-merge-check failed', r.message);
      return null;
    }
    if (version === this.accountVersion) this.wallet$.next({ ...this.wallet$.value, account: r.value });
    return r.value;
  }

  /** A recovery code was just made: nothing to ask any more (in every tab). */
  recoveryCodeSaved(): void {
    this.accountVersion++;
    this.wallet$.next({ ...this.wallet$.value, account: { canMigrate: false, hasRecoveryCode: true } });
  }

  dispose(): void {
    this.stopped.abort();
    for (const c of this.pollers.values()) c.abort();
    this.socket?.stop();
  }

  // ---- deposits ---------------------------------------------------------------------------------------------

  /** `network` and `usdEquivalent`: the payment store's selectedNetwork and usdEquivalentValue, when known. */
  async started(ticker: string, amount: string, tx: PaymentTransaction, store: { network?: string; usdEquivalent?: string } = {}): Promise<void> {
    const now = Date.now();
    // The Deposit flow's transactionData from now on: set before the append, so the view that shows the new record has it.
    this.transactionId = tx.id;
    const kept = { ...(store.network ? { network: store.network } : {}), ...(store.usdEquivalent ? { usdEquivalent: store.usdEquivalent } : {}) };
    await this.core.append([
      makeEvent(
        'payment.started',
        { id: tx.id, ticker, amount, txId: tx.txId, createdAt: tx.createdAt, paymentLink: tx.paymentLink, ...(tx.paymentNonce ? { paymentNonce: tx.paymentNonce } : {}), ...kept, at: now },
        crypto.randomUUID(),
        now,
      ),
    ]);
  }

  private poll(record: PaymentRecord): void {
    const controller = new AbortController();
    this.pollers.set(record.id, controller);
    const host: PollHost = {
      status: async (ticker, id): Promise<PollAnswer> => {
        const r = await money.status(ticker, id);
        if (r.ok) return { kind: 'status', status: r.value.status, ...(r.value.redeemable ? { redeemable: true } : {}) };
        return r.status === 404 ? { kind: 'notFound' } : { kind: 'error' };
      },
      settle: (rec, status) => this.settle(rec, status),
      redeem: (rec) => this.redeemDaimo(rec),
      now: () => Date.now(),
      sleep: abortableSleep,
    };
    const stop = (): void => controller.abort();
    this.stopped.signal.addEventListener('abort', stop);
    void pollPayment(host, record, controller.signal)
      .catch((e: unknown) => console.error('Payment polling failed', e))
      .finally(() => {
        this.stopped.signal.removeEventListener('abort', stop);
        this.pollers.delete(record.id);
      });
  }

  /** Redeems a Daimo-style deposit; on failure the spec's persistent red notice with the support address and the id. */
  private async redeemDaimo(record: PaymentRecord): Promise<boolean> {
    const r = await money.daimoCallback(record.id, record.paymentNonce ?? '');
    if (r.ok) return true;
    const methods = await money.methods();
    const email = methods.ok ? methods.value.supportEmail : 'support';
    this.quietFailures.add(record.id);
    this.core.notify({ title: DEPOSIT_TEXT.daimoFailedTitle, text: DEPOSIT_TEXT.daimoFailed(email, record.id), tone: 'red', durationMs: null, topic: DEPOSIT_TOPIC });
    return false;
  }

  private async settle(record: PaymentRecord, status: 'completed' | 'failed' | 'expired'): Promise<void> {
    const now = Date.now();
    await this.core.append([makeEvent('payment.settled', { id: record.id, status, at: now }, crypto.randomUUID(), now)]);
    if (status === 'completed') {
      // Spec 001 section 4: completed refreshes the session (the Deposit dialog closes on its own: nothing pending).
      await this.core.refreshSession();
      this.core.notify({ title: DEPOSIT_TEXT.depositReceived, text: `${formatMoney(record.amount, record.ticker)} was added to your balance.`, tone: 'green', durationMs: MONEY_DURATION.medium, topic: DEPOSIT_TOPIC });
    } else if (status === 'failed' && !this.quietFailures.delete(record.id)) {
      this.core.notify({ title: DEPOSIT_TEXT.transactionFailed, text: DEPOSIT_TEXT.transactionFailedText, tone: 'red', durationMs: null, topic: DEPOSIT_TOPIC });
    }
  }

  // ---- fiat rates -------------------------------------------------------------------------------------------

  async fiatRates(): Promise<FiatRatesView> {
    const now = Date.now();
    if (this.fiat && this.fiat.state === 'loaded' && now - this.fiat.timestamp < FIAT_RATES_CACHE_MS) return this.fiat;
    const r = await money.fiatPrices();
    if (r.ok) this.fiat = { eurPerUsd: Number(r.value.eurUsd), gbpPerUsd: Number(r.value.gbpUsd), timestamp: now, state: 'loaded' };
    else this.fiat = { eurPerUsd: this.fiat?.eurPerUsd ?? 0, gbpPerUsd: this.fiat?.gbpPerUsd ?? 0, timestamp: now, state: 'error' };
    return this.fiat;
  }

  // ---- nano -------------------------------------------------------------------------------------------------

  /** Makes (or reads) the deposit address and watches it on the configured nodes' websockets. */
  async watchNano(): Promise<{ ok: true; address: string } | { ok: false; error: string }> {
    const r = await money.nanoAddress();
    if (!r.ok) return { ok: false, error: r.message };
    const { address, websockets } = r.value;
    if (!address) return { ok: false, error: 'Nano deposits are not configured' };
    this.setNano({ address });
    if (!this.socket && this.openSocket && websockets.length > 0 && !this.stopped.signal.aborted) {
      this.watching = address;
      this.socket = new NanoDepositSocket({
        urls: websockets,
        account: address,
        open: this.openSocket,
        onSend: (send) => void this.confirmNano(send),
        onState: (state, node) => this.setNano({ state, node }),
      });
      this.socket.start();
    }
    return { ok: true, address };
  }

  private setNano(changes: Partial<WalletView['nano']>): void {
    this.wallet$.next({ ...this.wallet$.value, nano: { ...this.wallet$.value.nano, ...changes } });
  }

  /** The gateway checks the send against a node's RPC and credits it once; not confirmed yet is asked again. */
  private async confirmNano(send: NanoSend): Promise<void> {
    for (let i = 0; i < CONFIRM_RETRIES && !this.stopped.signal.aborted; i++) {
      const r = await money.nanoConfirm(send.hash);
      if (r.ok) {
        await this.core.refreshSession();
        if (r.value.credited) {
          this.setNano({ lastDeposit: { hash: send.hash, amount: formatRaw(send.amountRaw), at: Date.now() } });
          this.core.notify({ title: DEPOSIT_TEXT.depositReceived, text: `${formatXno(formatRaw(send.amountRaw))} was added to your balance.`, tone: 'green', durationMs: MONEY_DURATION.medium, topic: DEPOSIT_TOPIC });
        }
        return;
      }
      if (r.error !== 'NOT_CONFIRMED' && r.error !== 'NODE_UNAVAILABLE' && r.status !== 0) return;
      await abortableSleep(CONFIRM_RETRY_MS, this.stopped.signal);
    }
  }
}
