/**
 * How a media call pays (docs/gateway.md, "Holds"), in one place: reserve the call's price under its key before the
 * provider is called, settle it once when the work is done, release it when the work failed (nothing charged).
 * Free models take no hold. flux-schnell's free daily uses are counted here too (spec 000 section 6).
 */
import type { Context } from 'hono';
import type { PaymentSource } from '../../protocol/stream';
import { FREE_FLUX_METADATA_KEY, FREE_FLUX_PER_DAY, takeFreeFlux, utcDate, freeFluxUsed } from '../../protocol/image-rules';
import { jsonError, type RouteContext } from '../context';
import type { Queryable } from '../db/types';
import { formatNanoRawCeil, formatUsdMicro, PAID_THRESHOLD_NANO_RAW, PAID_THRESHOLD_USD_MICRO } from '../money';
import { paymentSourceOf } from '../ledger/paid-call';

/** A media hold lives this long before a sweep gives it back (a video may take up to the spec's 20 minutes). */
export const MEDIA_HOLD_TTL_MS = 30 * 60_000;

export type ReserveOutcome = { ok: true; held: boolean } | { ok: false; response: Response };

/** Reserves `usdMicro` under `key` (nothing for a free call). A refusal is the 402 (or 409 for a reused key). */
export async function reserveMedia(c: Context, ctx: RouteContext, sessionId: string, key: string, usdMicro: bigint | null, what: string): Promise<ReserveOutcome> {
  if (usdMicro === null || usdMicro === 0n) return { ok: true, held: false };
  const r = await ctx.ledger.reserve(sessionId, {
    key,
    maxUsdMicro: usdMicro,
    ttlMs: MEDIA_HOLD_TTL_MS,
    above: { usdMicro: PAID_THRESHOLD_USD_MICRO, nanoRaw: PAID_THRESHOLD_NANO_RAW },
    note: what,
  });
  if (!r.ok) {
    const raw = r.requiredNanoRaw > PAID_THRESHOLD_NANO_RAW ? r.requiredNanoRaw : PAID_THRESHOLD_NANO_RAW;
    const usd = r.requiredUsdMicro > PAID_THRESHOLD_USD_MICRO ? r.requiredUsdMicro : PAID_THRESHOLD_USD_MICRO;
    return {
      ok: false,
      response: jsonError(c, 402, 'INSUFFICIENT_BALANCE', `Insufficient balance: ${what} costs ${formatUsdMicro(usd)} USD or ${formatNanoRawCeil(raw)} XNO`, {
        requiredBalance: formatNanoRawCeil(raw),
        requiredUsd: formatUsdMicro(usd),
      }),
    };
  }
  if (r.duplicate) return { ok: false, response: jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again') };
  return { ok: true, held: true };
}

/** Settles a held call at its price; returns what the answer says it cost. A free call costs 0. */
export async function settleMedia(ctx: RouteContext, sessionId: string, key: string, usdMicro: bigint | null, held: boolean, what: string): Promise<{ cost: number; paymentSource: PaymentSource | null }> {
  if (!held || usdMicro === null) return { cost: 0, paymentSource: null };
  try {
    const r = await ctx.ledger.settle(sessionId, key, usdMicro, { countReply: true, note: what });
    return { cost: Number(r.chargedUsdValueMicro) / 1e6, paymentSource: paymentSourceOf(r) };
  } catch (e) {
    // Not charged: the hold stays until it expires and is then given back.
    ctx.log(`media: settle failed for ${key}: ${e instanceof Error ? e.message : String(e)}`);
    return { cost: 0, paymentSource: null };
  }
}

/** Gives a held call's money back (the work failed: nothing is charged). */
export async function releaseMedia(ctx: RouteContext, key: string, held: boolean): Promise<void> {
  if (!held) return;
  await ctx.ledger.release(key).catch((e: unknown) => ctx.log(`media: release failed for ${key}: ${e instanceof Error ? e.message : String(e)}`));
}

/**
 * Takes one of today's free flux-schnell uses from the session's 'count:date' metadata value, atomically (the row is
 * locked). Returns the uses left after it, or null when today's are gone.
 */
export async function takeFreeUse(db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> }, sessionId: string, now: number): Promise<number | null> {
  const today = utcDate(now);
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ v: string | null }>(`SELECT metadata->>$2 AS v FROM sessions WHERE id = $1 FOR UPDATE`, [sessionId, FREE_FLUX_METADATA_KEY]);
    const next = takeFreeFlux(rows[0]?.v ?? null, today, FREE_FLUX_PER_DAY);
    if (next === null) return null;
    await tx.query(`UPDATE sessions SET metadata = metadata || jsonb_build_object($2::text, $3::text) WHERE id = $1`, [sessionId, FREE_FLUX_METADATA_KEY, next.value]);
    return next.left;
  });
}

/** Gives a free use back (the generation failed), if it was taken today. */
export async function returnFreeUse(db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> }, sessionId: string, now: number): Promise<void> {
  const today = utcDate(now);
  await db.transaction(async (tx) => {
    const rows = await tx.query<{ v: string | null }>(`SELECT metadata->>$2 AS v FROM sessions WHERE id = $1 FOR UPDATE`, [sessionId, FREE_FLUX_METADATA_KEY]);
    const used = freeFluxUsed(rows[0]?.v ?? null, today);
    if (used === 0) return;
    await tx.query(`UPDATE sessions SET metadata = metadata || jsonb_build_object($2::text, $3::text) WHERE id = $1`, [sessionId, FREE_FLUX_METADATA_KEY, `${used - 1}:${today}`]);
  });
}
