/**
 * The payment side of the gateway: which provider takes a ticker, creating a deposit, its status, webhooks, the
 * expiry sweep. Routes (./routes.ts) are a thin layer over this.
 */
import type { Db } from '../db/types';
import type { Ledger } from '../money/ledger';
import { formatUsdMicro } from '../money/amounts';
import { PAYMENT_EXPIRY_MS, type PaymentLimits, type PaymentStatus, type Ticker } from '../../protocol/payments';
import { btcpayProvider } from './btcpay';
import type { MoneyConfig } from './config';
import { limitsOf, unitsOf, usdMicroFor, usdMicroPerUnit, type Limits } from './pricing';
import { stripeProvider } from './stripe';
import { getTx, hasPriorDeposit, insertTx, newTxId, overdueTxs, saveMethod, setCheckout, settlePayment, txOfEvent } from './store';
import { testProvider } from './test-provider';
import { ProviderError, type PaymentProvider, type ProviderEvent, type RechargeOutcome, type TxRecord } from './types';
import { timingSafeEqual } from 'node:crypto';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type CreateOutcome =
  | { ok: true; tx: TxRecord }
  | { ok: false; status: 400 | 404 | 503; error: string; message: string; limit?: string };

export class Payments {
  readonly providers: PaymentProvider[];
  constructor(
    readonly db: Db,
    readonly ledger: Ledger,
    readonly cfg: MoneyConfig,
    private readonly log: (line: string) => void,
  ) {
    // Order is preference: a real provider wins over the test one for a ticker both take.
    const list: PaymentProvider[] = [];
    if (cfg.stripe) list.push(stripeProvider(cfg.stripe));
    if (cfg.btcpay) list.push(btcpayProvider(cfg.btcpay));
    if (cfg.testPayments) list.push(testProvider((t) => t !== 'XNO' && this.rate(t) !== null));
    this.providers = list;
  }

  rate(ticker: Ticker): bigint | null {
    return usdMicroPerUnit(ticker, this.cfg, this.ledger.nanoPriceUsdMicro);
  }

  providerFor(ticker: Ticker): PaymentProvider | null {
    if (this.rate(ticker) === null) return null;
    return this.providers.find((p) => p.supports(ticker)) ?? null;
  }

  byName(name: string): PaymentProvider | null {
    return this.providers.find((p) => p.name === name) ?? null;
  }

  async limits(sessionId: string, ticker: Ticker): Promise<{ limits: Limits; view: PaymentLimits } | null> {
    const rate = this.rate(ticker);
    if (rate === null) return null;
    const prior = ticker === 'USD' || ticker === 'EUR' ? await hasPriorDeposit(this.db, sessionId) : false;
    const limits = limitsOf(ticker, rate, prior, this.cfg.eurPerUsdMicro);
    const provider = ticker === 'XNO' ? (this.cfg.nano ? 'nano' : null) : (this.providerFor(ticker)?.name ?? null);
    return { limits, view: { ...limits.view, timestamp: Date.now(), provider } };
  }

  /** POST /transaction/create/{ticker}: checks the amount against the limits, then asks the provider for a checkout. */
  async create(sessionId: string, ticker: Ticker, amount: string, origin: string, opts: { daimo?: boolean } = {}): Promise<CreateOutcome> {
    // Daimo-style deposits (paid, then redeemed by the app) exist only with the test provider here (docs/decisions.md).
    const provider = opts.daimo ? (this.rate(ticker) !== null ? this.byName('test') : null) : this.providerFor(ticker);
    const rate = this.rate(ticker);
    if (!provider || rate === null) {
      return { ok: false, status: 400, error: 'METHOD_UNAVAILABLE', message: `The payment method ${ticker} is not available on this server` };
    }
    const found = await this.limits(sessionId, ticker);
    if (!found) return { ok: false, status: 400, error: 'METHOD_UNAVAILABLE', message: `The payment method ${ticker} is not available` };
    const units = unitsOf(amount);
    const { limits } = found;
    if (units < limits.minUnits) {
      return { ok: false, status: 400, error: 'AMOUNT_TOO_SMALL', message: `Below the minimum deposit of ${limits.view.minimum} ${ticker}`, limit: limits.view.minimum };
    }
    if (units > limits.maxUnits) {
      return { ok: false, status: 400, error: 'AMOUNT_TOO_LARGE', message: `Above the maximum deposit of ${limits.view.maximum} ${ticker}`, limit: limits.view.maximum };
    }
    const usdMicro = usdMicroFor(ticker, units, rate, this.cfg);
    if (usdMicro <= 0n) return { ok: false, status: 400, error: 'INVALID_AMOUNT', message: 'Invalid payment amount' };
    const tx = await insertTx(this.db, { id: newTxId(), sessionId, provider: provider.name, ticker, purpose: 'deposit', amount, usdMicro, daimo: opts.daimo === true });
    try {
      const made = await provider.create({ tx, returnUrl: `${this.cfg.publicUrl ?? origin}/wallet`, origin: this.cfg.publicUrl ?? origin });
      await setCheckout(this.db, tx.id, made.providerRef, made.paymentLink);
      return { ok: true, tx: { ...tx, providerRef: made.providerRef, paymentLink: made.paymentLink } };
    } catch (e) {
      await this.db.query(`UPDATE payment_transactions SET status = 'failed', settled_at = now() WHERE id = $1 AND status = 'pending'`, [tx.id]);
      this.log(`payment ${tx.id} via ${provider.name} could not be created: ${e instanceof Error ? e.message : String(e)}`);
      return { ok: false, status: 503, error: 'PROVIDER_UNAVAILABLE', message: 'Unable to create payment' };
    }
  }

  /** GET /transaction/status: the stored status, refreshed from the provider while pending; expired after 30 minutes. */
  async status(sessionId: string, id: string): Promise<{ status: PaymentStatus; redeemable?: boolean } | null> {
    const tx = await getTx(this.db, id);
    if (!tx || tx.sessionId !== sessionId) return null;
    if (tx.status !== 'pending') return { status: tx.status };
    if (tx.paymentNonce !== null && tx.providerPaid) return { status: 'pending', redeemable: true };
    return { status: await this.refresh(tx) };
  }

  /**
   * POST /transaction/callback/daimo: the app redeems a Daimo-style deposit the provider says is paid, with the
   * transaction's nonce. Credits once (a second redeem answers the same). Null when there is nothing to redeem.
   */
  async redeem(sessionId: string, id: string, nonce: string): Promise<PaymentStatus | null> {
    const tx = await getTx(this.db, id);
    if (!tx || tx.sessionId !== sessionId || tx.paymentNonce === null || !sameSecret(tx.paymentNonce, nonce)) return null;
    if (tx.status === 'completed') return 'completed';
    if (tx.status !== 'pending' || !tx.providerPaid) return null;
    return settlePayment(this, tx, 'completed', { provider: tx.provider, id: `${tx.id}:daimo-redeem` });
  }

  /** Asks the provider about a pending transaction and applies what it says; past its expiry, expires it. */
  async refresh(tx: TxRecord): Promise<PaymentStatus> {
    const provider = this.byName(tx.provider);
    let outcome: PaymentStatus = 'pending';
    if (provider && provider.name !== 'test') {
      try {
        outcome = await provider.status(tx);
      } catch (e) {
        this.log(`status of ${tx.id} from ${tx.provider}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    // A Daimo-style deposit paid at the provider waits for its redeem call rather than expiring.
    if (outcome === 'pending' && Date.now() > tx.expiresAt.getTime() && !tx.providerPaid) outcome = 'expired';
    if (outcome === 'pending') return 'pending';
    return settlePayment(this, tx, outcome, { provider: tx.provider, id: `${tx.id}:status:${outcome}` });
  }

  /** A verified webhook's events, each applied once. Unknown transactions are ignored (logged). */
  async applyEvents(providerName: string, events: ProviderEvent[]): Promise<void> {
    for (const e of events) {
      const tx = await txOfEvent(this.db, providerName, e);
      if (!tx) {
        this.log(`${providerName} event ${e.eventId} names no known transaction`);
        continue;
      }
      if (e.savedMethod) await saveMethod(this.db, tx.sessionId, providerName, e.savedMethod);
      await settlePayment(this, tx, e.outcome, { provider: providerName, id: e.eventId });
    }
  }

  /** Expires (or completes, if the provider says so) pending transactions past their 30 minutes. */
  async sweep(): Promise<number> {
    const overdue = await overdueTxs(this.db, 100);
    for (const tx of overdue) await this.refresh(tx);
    return overdue.length;
  }

  /** Creates and runs an auto-recharge top-up (./recharge.ts decides when). */
  async recharge(
    sessionId: string,
    usdMicro: bigint,
    saved: (provider: string) => Promise<{ customerRef: string; methodRef: string | null } | null>,
  ): Promise<{ txId: string; status: PaymentStatus } | null> {
    for (const p of this.providers) {
      if (!p.recharge || !p.supports('USD')) continue;
      const method = p.name === 'test' ? null : await saved(p.name);
      if (p.name !== 'test' && !method) continue;
      const amount = formatUsdMicro(usdMicro);
      const tx = await insertTx(this.db, { id: newTxId(), sessionId, provider: p.name, ticker: 'USD', purpose: 'recharge', amount, usdMicro });
      let outcome: RechargeOutcome | null;
      try {
        outcome = await p.recharge(tx, method, this.cfg.publicUrl ?? '');
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        this.log(`recharge ${tx.id} via ${p.name}: ${e.message}`);
        outcome = { status: 'failed' };
      }
      if (outcome === null) {
        await this.db.query(`UPDATE payment_transactions SET status = 'failed', settled_at = now() WHERE id = $1 AND status = 'pending'`, [tx.id]);
        continue;
      }
      if (outcome.providerRef) await setCheckout(this.db, tx.id, outcome.providerRef, outcome.paymentLink ?? '');
      // 'pending' credits nothing: the top-up waits for its checkout (test provider) or the provider's word (webhook,
      // status poll); the transaction expires like a deposit after 30 minutes.
      return { txId: tx.id, status: await settlePayment(this, tx, outcome.status, { provider: p.name, id: `${tx.id}:recharge:${outcome.status}` }) };
    }
    return null;
  }

  /** Can this session be topped up automatically (a provider that charges without the payer)? */
  async canRecharge(sessionId: string, saved: (provider: string) => Promise<unknown>): Promise<boolean> {
    for (const p of this.providers) {
      if (!p.recharge || !p.supports('USD')) continue;
      if (p.name === 'test' || (await saved(p.name)) !== null) return true;
    }
    return false;
  }
}

export { PAYMENT_EXPIRY_MS };
