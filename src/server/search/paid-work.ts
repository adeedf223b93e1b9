/**
 * Paid tool work (web search, scraping): the one place these routes use ledger holds, so that switching to a
 * shared hold helper is a change here only (docs/gateway.md, "Holds").
 *
 *   reserve the most the work can cost (with the paid-use threshold) -> do the work -> settle what it actually
 *   cost (its own ledger entry, under the hold's key), or release the whole hold when it failed.
 *
 * A failure charges nothing. A key reserved before (a retried request) is refused rather than worked twice.
 */
import type { Context } from 'hono';
import { jsonError, type RouteContext } from '../context';
import { formatNanoRawCeil, formatUsdMicro, PAID_THRESHOLD_NANO_RAW, PAID_THRESHOLD_USD_MICRO } from '../money';

/** A hold left open by a gateway that died mid-work is swept after this. */
const TOOL_HOLD_TTL_MS = 10 * 60_000;

export interface PaidWorkPlan {
  /** Idempotency key of the hold and of its ledger entry. */
  key: string;
  /** The most the work may cost, micro-USD. */
  maxUsdMicro: bigint;
  /** What the user is paying for, in the 402 message ("web search", "scraping 3 pages"). */
  what: string;
  /** Ledger note. */
  note: string;
}

export interface PaidOutcome<T> {
  value: T;
  /** What the work cost, micro-USD (0 when nothing was charged). */
  costUsdMicro: bigint;
}

export interface Charged<T> {
  value: T;
  /** USD value charged (a number, like the reply metadata's `cost`). */
  cost: number;
  paymentSource: 'USD' | 'nano';
}

/**
 * Runs `work` under a hold. Returns the route's answer for a refused hold (402 or 409), else the work's value with
 * what was charged. `work` returns the actual cost (at most the plan's maximum); a throw releases the hold and is
 * rethrown.
 */
export async function withHold<T>(
  c: Context,
  ctx: RouteContext,
  plan: PaidWorkPlan,
  work: () => Promise<PaidOutcome<T>>,
): Promise<{ ok: true; charged: Charged<T> } | { ok: false; response: Response }> {
  const sessionId = c.get('sessionId') as string;
  const r = await ctx.ledger.reserve(sessionId, {
    key: plan.key,
    maxUsdMicro: plan.maxUsdMicro,
    ttlMs: TOOL_HOLD_TTL_MS,
    above: { usdMicro: PAID_THRESHOLD_USD_MICRO, nanoRaw: PAID_THRESHOLD_NANO_RAW },
    note: plan.note,
  });
  if (!r.ok) {
    const usd = r.requiredUsdMicro > PAID_THRESHOLD_USD_MICRO ? r.requiredUsdMicro : PAID_THRESHOLD_USD_MICRO;
    const raw = r.requiredNanoRaw > PAID_THRESHOLD_NANO_RAW ? r.requiredNanoRaw : PAID_THRESHOLD_NANO_RAW;
    return {
      ok: false,
      response: jsonError(
        c,
        402,
        'INSUFFICIENT_BALANCE',
        `Insufficient balance: ${plan.what} needs ${formatUsdMicro(usd)} USD or ${formatNanoRawCeil(raw)} XNO available`,
        { requiredBalance: formatNanoRawCeil(raw), requiredUsd: formatUsdMicro(usd) },
      ),
    };
  }
  if (r.duplicate) {
    return { ok: false, response: jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again') };
  }
  let outcome: PaidOutcome<T>;
  try {
    outcome = await work();
  } catch (e) {
    await ctx.ledger.release(plan.key).catch(() => false);
    throw e;
  }
  if (outcome.costUsdMicro <= 0n) {
    await ctx.ledger.release(plan.key);
    return { ok: true, charged: { value: outcome.value, cost: 0, paymentSource: r.hold.source } };
  }
  const settled = await ctx.ledger.settle(sessionId, plan.key, outcome.costUsdMicro, { note: plan.note });
  return {
    ok: true,
    charged: {
      value: outcome.value,
      cost: Number(settled.chargedUsdValueMicro) / 1e6,
      paymentSource: settled.source === 'nano' ? 'nano' : 'USD',
    },
  };
}
