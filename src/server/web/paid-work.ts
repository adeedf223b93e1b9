/**
 * Paid tool work (web search, scraping): the one place these routes use ledger holds, on the gateway's shared hold
 * API (src/server/money/paid-call.ts; docs/gateway.md, "Holds").
 *
 *   reserve the most the work can cost (with the paid-use threshold) -> do the work -> settle what it actually
 *   cost (its own ledger entry, under the hold's key), or release the whole hold when it failed.
 *
 * A failure charges nothing. A key reserved before (a retried request) is refused rather than worked twice.
 */
import type { Context } from 'hono';
import { type RouteContext } from '../context';
import { jsonError } from '../http';
import { insufficientBalance, withHold as withPaidHold } from '../money/paid-call';
import { formatNanoRawCeil, formatUsdMicro } from '../money/amounts';

/** A hold left open by a gateway that died mid-work is swept after this (renewed while the work runs). */
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
 * Runs `work` under a hold, through the gateway's one hold API (src/server/money/paid-call.ts, docs/gateway.md
 * "Holds"). Returns the route's answer for a refused hold (402 or 409), else the work's value with what was
 * charged. `work` returns the actual cost (at most the plan's maximum); a throw releases the hold and is rethrown.
 * A settle that fails in the database charges nothing (cost 0).
 */
export async function withHold<T>(
  c: Context,
  ctx: RouteContext,
  plan: PaidWorkPlan,
  work: () => Promise<PaidOutcome<T>>,
): Promise<{ ok: true; charged: Charged<T> } | { ok: false; response: Response }> {
  const sessionId = c.get('sessionId') as string;
  const r = await withPaidHold(
    ctx.ledger,
    sessionId,
    { key: plan.key, maxUsdMicro: plan.maxUsdMicro, note: plan.note, ttlMs: TOOL_HOLD_TTL_MS },
    async () => {
      const outcome = await work();
      return { value: outcome.value, costUsdMicro: outcome.costUsdMicro > 0n ? outcome.costUsdMicro : null };
    },
    ctx.log,
  );
  if (!r.ok && r.kind === 'short') {
    const { requiredUsdMicro: usd, requiredNanoRaw: raw } = r.shortfall;
    return { ok: false, response: insufficientBalance(c, `Insufficient balance: ${plan.what} needs ${formatUsdMicro(usd)} USD or ${formatNanoRawCeil(raw)} XNO available`, r.shortfall) };
  }
  if (!r.ok) {
    return { ok: false, response: jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again') };
  }
  const s = r.settlement;
  return { ok: true, charged: { value: r.value, cost: s?.cost ?? 0, paymentSource: s?.paymentSource ?? 'USD' } };
}
