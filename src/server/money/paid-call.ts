/**
 * The one way a route spends a session's money on paid work (docs/gateway.md "Holds: the rule for every paid
 * call"): reserve the call's maximum cost before any provider is asked, run the work, settle the actual cost once
 * (or give everything back when nothing is to be charged), and never leave the hold behind.
 *
 *   const r = await withHold(ctx.ledger, sessionId, { key, maxUsdMicro, note }, async (hold) => {
 *     const out = await provider.generate(input, signal);        // the paid work
 *     return { value: out, costUsdMicro: priceOf(out) };        // settled at min(cost, maxUsdMicro)
 *   });                                                          // or costUsdMicro: null = nothing to charge
 *   if (!r.ok) return r.kind === 'short' ? insufficientBalance(c, 'This image model', r.shortfall) : alreadyAnswered(c);
 *
 * A streamed reply, whose work outlives the request handler, reserves with `reservePaidCall` and keeps the
 * `OpenHold` until the stream ends (chat/stream-gpt.ts). Either way:
 *  - the reserve is one conditional statement (money/holds.ts): it fails rather than overdraw, so parallel calls
 *    can never spend more than the session holds, and it includes the spec's paid-use threshold (a balance above
 *    0.00001);
 *  - `settle` and `release` act once: a second call returns the first result;
 *  - while the call runs, its hold's expiry is pushed back (every TTL / 3), so only a hold whose gateway died
 *    expires (and is then given back by a sweep);
 *  - a settle that fails in the database is reported as `billingError` (spec 000 section 8: not charged); the
 *    hold stays until it expires and is then given back.
 */
import type { Context } from 'hono';
import type { PaymentSource } from '../../protocol/stream';
import { jsonError } from '../http';
import { formatNanoRawCeil, formatUsdMicro, PAID_THRESHOLD_NANO_RAW, PAID_THRESHOLD_USD_MICRO } from './amounts';
import type { ChargeResult, Ledger } from './ledger';

/** Default life of a hold whose gateway stopped renewing it (a gateway that died). */
export const HOLD_TTL_MS = 30 * 60_000;

export interface PaidCall {
  /**
   * Idempotency key of the hold and of its charge: one per call and never reused, e.g.
   * `image:{sessionId}:{requestId}` with the requestId bound to its request (body/request-binding.ts).
   */
  key: string;
  /** The most the call can cost, in micro-dollars: what is reserved, and the most that can be charged. */
  maxUsdMicro: bigint;
  /** Shown with the hold and the charge in the ledger, e.g. 'stream-gpt gpt-4o'. */
  note: string;
  /** Life of the hold if this gateway dies (renewed while it lives); default HOLD_TTL_MS. */
  ttlMs?: number;
}

/** What a refused reserve needed: at least the paid-use threshold, in USD and in nano. */
export interface Shortfall {
  requiredUsdMicro: bigint;
  requiredNanoRaw: bigint;
}

/** What a settled call was charged, in the shape the stream metadata reports it. */
export interface Settlement {
  /** USD value charged, micro-dollars (nano valued at the hold's price). */
  costUsdMicro: bigint;
  /** The same in USD, for the metadata's `cost`. */
  cost: number;
  paymentSource: PaymentSource;
  /** Not charged (spec 000 section 8): the settle failed in the database; the hold is given back when it expires. */
  billingError: boolean;
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** Which balance paid, for the metadata. */
export function paymentSourceOf(r: ChargeResult): PaymentSource {
  if (r.source === 'nano') return 'nano';
  if (r.source === 'mixed') return r.chargedUsdMicro * 2n >= r.chargedUsdValueMicro ? 'USD' : 'nano';
  if (r.source === 'USD') return 'USD';
  return r.balance.usdMicro > 0n || r.balance.nanoRaw === 0n ? 'USD' : 'nano';
}

/** What a charge took, as the metadata reports it; `billingError` when it took nothing (status insufficient). */
function settlementOf(r: ChargeResult): Settlement {
  return { costUsdMicro: r.chargedUsdValueMicro, cost: Number(r.chargedUsdValueMicro) / 1e6, paymentSource: paymentSourceOf(r), billingError: r.status !== 'applied' };
}

/** A reserved hold, until it is settled or released (once). */
export class OpenHold {
  private outcome: Promise<Settlement | null> | null = null;
  private renewTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly ttlMs: number;

  constructor(
    private readonly ledger: Ledger,
    readonly sessionId: string,
    readonly call: PaidCall,
    private readonly log: (line: string) => void,
  ) {
    this.ttlMs = call.ttlMs ?? HOLD_TTL_MS;
    this.scheduleRenewal();
  }

  get key(): string {
    return this.call.key;
  }

  /** Settled or released. */
  get closed(): boolean {
    return this.outcome !== null;
  }

  /**
   * Charges min(actual, maxUsdMicro) and gives back the rest; once (a second call returns the first result, and a
   * settle after a release returns null). Never throws: a database failure is a `billingError`.
   */
  settle(actualUsdMicro: bigint, opts: { countReply?: boolean } = {}): Promise<Settlement | null> {
    this.outcome ??= this.close(async () => {
      try {
        const r = await this.ledger.settle(this.sessionId, this.call.key, actualUsdMicro, { countReply: opts.countReply === true, note: this.call.note });
        if (r.requestedUsdMicro > this.call.maxUsdMicro) {
          this.log(`${this.call.note}: cost ${r.requestedUsdMicro} micro-USD, more than its hold of ${this.call.maxUsdMicro}; charged the hold`);
        }
        return settlementOf(r);
      } catch (e) {
        // The settle may have committed before its answer was lost: report what the ledger holds for the key.
        const recorded = await this.ledger.chargeOf(this.sessionId, this.call.key).catch(() => null);
        if (recorded !== null) return settlementOf(recorded);
        this.log(`${this.call.note}: settle of ${this.call.key} failed (not charged; the hold expires): ${e instanceof Error ? e.message : String(e)}`);
        return { costUsdMicro: 0n, cost: 0, paymentSource: 'USD', billingError: true };
      }
    });
    return this.outcome;
  }

  /**
   * Gives the whole hold back (nothing to charge); once, and a no-op after a settle. `forget` deletes it, for a
   * call that never reached its provider, so that the same key can be reserved again by a retry.
   */
  async release(opts: { forget?: boolean } = {}): Promise<void> {
    this.outcome ??= this.close(async () => {
      await this.ledger.release(this.call.key, { forget: opts.forget === true }).catch((e: unknown) => {
        this.log(`${this.call.note}: could not release ${this.call.key} (it expires): ${e instanceof Error ? e.message : String(e)}`);
      });
      return null;
    });
    await this.outcome;
  }

  private close<T>(fn: () => Promise<T>): Promise<T> {
    if (this.renewTimer !== null) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    return fn();
  }

  private scheduleRenewal(): void {
    this.renewTimer = setTimeout(() => {
      this.renewTimer = null;
      if (this.closed) return;
      this.ledger.renewHolds([this.call.key], this.ttlMs).then(
        () => {
          if (!this.closed) this.scheduleRenewal();
        },
        (e: unknown) => {
          this.log(`${this.call.note}: could not renew hold ${this.call.key}: ${e instanceof Error ? e.message : String(e)}`);
          if (!this.closed) this.scheduleRenewal();
        },
      );
    }, Math.max(1000, this.ttlMs / 3));
    this.renewTimer.unref?.();
  }
}

export type ReserveOutcome =
  | { ok: true; hold: OpenHold }
  /** The balance cannot cover the hold (or is not above the paid-use threshold): answer 402 with the shortfall. */
  | { ok: false; kind: 'short'; shortfall: Shortfall }
  /** The key already had a hold: this call was made before (never do the work twice under one key). */
  | { ok: false; kind: 'used' };

/**
 * Reserves a paid call's maximum cost without an OpenHold: for work a queue carries on after the request, across
 * gateway processes, and settles or releases by the call's key (media/video-jobs.ts). Throws only on database errors.
 */
export async function reserveHold(ledger: Ledger, sessionId: string, call: PaidCall): Promise<{ ok: true } | Exclude<ReserveOutcome, { ok: true }>> {
  const r = await ledger.reserve(sessionId, {
    key: call.key,
    maxUsdMicro: call.maxUsdMicro,
    ttlMs: call.ttlMs ?? HOLD_TTL_MS,
    above: { usdMicro: PAID_THRESHOLD_USD_MICRO, nanoRaw: PAID_THRESHOLD_NANO_RAW },
    note: call.note,
  });
  if (!r.ok) {
    return {
      ok: false,
      kind: 'short',
      shortfall: { requiredUsdMicro: max(r.requiredUsdMicro, PAID_THRESHOLD_USD_MICRO), requiredNanoRaw: max(r.requiredNanoRaw, PAID_THRESHOLD_NANO_RAW) },
    };
  }
  if (r.duplicate) return { ok: false, kind: 'used' };
  return { ok: true };
}

/** Reserves a paid call's maximum cost (see the file comment). Throws only on database errors. */
export async function reservePaidCall(ledger: Ledger, sessionId: string, call: PaidCall, log: (line: string) => void): Promise<ReserveOutcome> {
  const r = await reserveHold(ledger, sessionId, call);
  return r.ok ? { ok: true, hold: new OpenHold(ledger, sessionId, call, log) } : r;
}

/** What the work of `withHold` returns: its value, and what to charge (null: nothing, the hold goes back). */
export interface PaidWorkResult<T> {
  value: T;
  costUsdMicro: bigint | null;
  /** Counts one reply on the session (chat replies); default false. */
  countReply?: boolean;
}

/**
 * Reserves, runs `work`, settles its cost once (or releases), and never leaves the hold open: if `work` throws,
 * the hold is released (`forget` when the work says it never reached its provider, see OpenHold.release) and the
 * error rethrown. The work may also settle or release the hold itself (e.g. to report the cost as it streams).
 */
export async function withHold<T>(
  ledger: Ledger,
  sessionId: string,
  call: PaidCall,
  work: (hold: OpenHold) => Promise<PaidWorkResult<T>>,
  log: (line: string) => void,
): Promise<{ ok: true; value: T; settlement: Settlement | null } | Exclude<ReserveOutcome, { ok: true }>> {
  const reserved = await reservePaidCall(ledger, sessionId, call, log);
  if (!reserved.ok) return reserved;
  const hold = reserved.hold;
  let result: PaidWorkResult<T>;
  try {
    result = await work(hold);
  } catch (e) {
    await hold.release();
    throw e;
  }
  if (result.costUsdMicro === null) {
    await hold.release();
    return { ok: true, value: result.value, settlement: null };
  }
  const settlement = await hold.settle(result.costUsdMicro, { countReply: result.countReply === true });
  return { ok: true, value: result.value, settlement };
}

/** The 402 of a refused hold (protocol.md): what the call needs, in USD and in nano. */
export function insufficientBalance(c: Context, message: string, shortfall: Shortfall): Response {
  return jsonError(c, 402, 'INSUFFICIENT_BALANCE', message, {
    requiredBalance: formatNanoRawCeil(shortfall.requiredNanoRaw),
    requiredUsd: formatUsdMicro(shortfall.requiredUsdMicro),
  });
}

/** The usual 402 message of a paid model's refused hold. */
export function insufficientBalanceMessage(what: string, shortfall: Shortfall): string {
  return `Insufficient balance: ${what} is a paid model and this request needs ${formatUsdMicro(shortfall.requiredUsdMicro)} USD or ${formatNanoRawCeil(shortfall.requiredNanoRaw)} XNO available (its maximum cost, reserved until the reply ends)`;
}
