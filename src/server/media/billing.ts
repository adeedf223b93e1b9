/**
 * How a media call pays (docs/gateway.md, "Holds"), through the hold API (ledger/paid-call.ts) like every paid
 * call: an image holds its price with `withHold` around the provider call (settled when the images came, given back
 * when they did not); a video, which a job runner carries on after the request (media/video-jobs.ts), reserves with
 * `reserveHold` here and the runner settles or releases the hold by its key. Free models take no hold.
 * flux-schnell's free daily uses are counted here too (spec 000 section 6).
 */
import type { Context } from 'hono';
import { FREE_FLUX_METADATA_KEY, FREE_FLUX_PER_DAY, takeFreeFlux, utcDate, freeFluxUsed } from '../../protocol/image-rules';
import { jsonError, type RouteContext } from '../context';
import type { Queryable } from '../db/types';
import { formatNanoRawCeil, formatUsdMicro } from '../money';
import { insufficientBalance, reserveHold, type ReserveOutcome } from '../ledger/paid-call';

/** A media hold lives this long before a sweep gives it back (a video may take up to the spec's 20 minutes). */
export const MEDIA_HOLD_TTL_MS = 30 * 60_000;

/** The answer to a media call whose hold was refused: 402 with what it costs, or 409 for a key used before. */
export function refusedMedia(c: Context, refusal: Exclude<ReserveOutcome, { ok: true }>, what: string): Response {
  if (refusal.kind === 'used') return jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again');
  const { requiredUsdMicro: usd, requiredNanoRaw: raw } = refusal.shortfall;
  return insufficientBalance(c, `Insufficient balance: ${what} costs ${formatUsdMicro(usd)} USD or ${formatNanoRawCeil(raw)} XNO`, refusal.shortfall);
}

export type ReserveOutcomeMedia = { ok: true; held: boolean } | { ok: false; response: Response };

/** Reserves a queued call's price under `key` (nothing for a free call); the job runner settles or releases it. */
export async function reserveQueuedMedia(c: Context, ctx: RouteContext, sessionId: string, key: string, usdMicro: bigint | null, what: string): Promise<ReserveOutcomeMedia> {
  if (usdMicro === null || usdMicro === 0n) return { ok: true, held: false };
  const r = await reserveHold(ctx.ledger, sessionId, { key, maxUsdMicro: usdMicro, ttlMs: MEDIA_HOLD_TTL_MS, note: what });
  return r.ok ? { ok: true, held: true } : { ok: false, response: refusedMedia(c, r, what) };
}

/** Gives a queued call's held money back (the job was never queued: nothing is charged). */
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
