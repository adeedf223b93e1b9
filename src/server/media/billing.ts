/**
 * How a media call pays (docs/gateway.md, "Holds"), through the hold API (money/paid-call.ts) like every paid
 * call: an image holds its price with `withHold` around the provider call (settled when the images came, given back
 * when they did not); a video, which a job runner carries on after the request (media/video-jobs.ts), reserves with
 * `reserveHold` here and the runner settles or releases the hold by its key. Free models take no hold.
 * flux-schnell's free daily uses are counted here too (spec 000 section 6), per session, per client address and per day.
 */
import type { Context } from 'hono';
import { FREE_FLUX_QUOTA, takeFreeFlux, utcDate, freeFluxUsed, type FreeImageQuota } from '../../protocol/image-rules';
import { type RouteContext } from '../context';
import { jsonError } from '../http';
import type { Db } from '../db/types';
import { addressGroup } from '../guards/client-address';
import { formatNanoRawCeil, formatUsdMicro } from '../money/amounts';
import { insufficientBalance, reserveHold, type ReserveOutcome } from '../money/paid-call';
import type { FreeQuotaLimits } from './config';

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

/** Why a free use could not be taken: the session's 10 are used, its address's share, or the gateway's day. */
export type FreeUseSpent = 'session' | 'address' | 'day';

/** A free use taken: how many are left (the least of the three counts) and what to give back if it fails. */
export interface FreeUseTaken {
  left: number;
  day: string;
  /** The free_quota_uses rows it was counted in. */
  scopes: string[];
  /** The session metadata key it was counted in (the quota's). */
  metadataKey: string;
}

class QuotaSpent extends Error {
  constructor(readonly which: Exclude<FreeUseSpent, 'session'>) {
    super(`free quota spent: ${which}`);
  }
}

/**
 * Takes one of today's free flux-schnell uses, counted three ways in one transaction (issue 15: sessions are free,
 * so a count per session alone let every new session have 10 more):
 *
 *  1. the session's 'count:date' metadata value (spec 000 section 6), on its locked row, as before;
 *  2. its client address's count (IPv6 by /64), `limits.perAddress` a day for all its sessions together;
 *  3. the gateway's count for all sessions, `limits.perDay` a day.
 *
 * 2 and 3 are rows of free_quota_uses, each taken with one conditional upsert (`... DO UPDATE ... WHERE used <
 * limit`), which Postgres decides on the latest version of the row: parallel takes through any number of gateway
 * processes never pass a limit. Any count spent rolls the whole transaction back (nothing is counted). Lock order
 * everywhere: session row, address row, total row, so takes and give-backs cannot deadlock. `address` null (an
 * in-process request with no socket) is counted by session and day only.
 */
export async function takeFreeUse(db: Pick<Db, 'transaction'>, sessionId: string, address: string | null, limits: FreeQuotaLimits, now: number, quota: FreeImageQuota = FREE_FLUX_QUOTA): Promise<{ ok: true; taken: FreeUseTaken } | { ok: false; spent: FreeUseSpent }> {
  const today = utcDate(now);
  const counts: [scope: string, limit: number, which: Exclude<FreeUseSpent, 'session'>][] = [];
  if (address !== null) counts.push([`${quota.scope}addr:${addressGroup(address)}`, limits.perAddress, 'address']);
  counts.push([`${quota.scope}total`, limits.perDay, 'day']);
  try {
    return await db.transaction(async (tx) => {
      const rows = await tx.query<{ v: string | null }>(`SELECT metadata->>$2 AS v FROM sessions WHERE id = $1 FOR UPDATE`, [sessionId, quota.metadataKey]);
      const next = takeFreeFlux(rows[0]?.v ?? null, today, quota.perDay);
      if (next === null) return { ok: false as const, spent: 'session' as const };
      let left = next.left;
      for (const [scope, limit, which] of counts) {
        if (limit <= 0) throw new QuotaSpent(which);
        const taken = await tx.query<{ used: number | string }>(
          `INSERT INTO free_quota_uses (scope, day, used) VALUES ($1, $2::date, 1)
           ON CONFLICT (scope, day) DO UPDATE SET used = free_quota_uses.used + 1 WHERE free_quota_uses.used < $3
           RETURNING used`,
          [scope, today, limit],
        );
        if (taken[0] === undefined) throw new QuotaSpent(which);
        left = Math.min(left, limit - Number(taken[0].used));
      }
      await tx.query(`UPDATE sessions SET metadata = metadata || jsonb_build_object($2::text, $3::text) WHERE id = $1`, [sessionId, quota.metadataKey, next.value]);
      return { ok: true as const, taken: { left, day: today, scopes: counts.map(([scope]) => scope), metadataKey: quota.metadataKey } };
    });
  } catch (e) {
    if (e instanceof QuotaSpent) return { ok: false, spent: e.which };
    throw e;
  }
}

/** Gives a free use back (the generation failed) to every count it was taken from, on the day it was taken. */
export async function returnFreeUse(db: Pick<Db, 'transaction'>, sessionId: string, taken: FreeUseTaken): Promise<void> {
  await db.transaction(async (tx) => {
    const rows = await tx.query<{ v: string | null }>(`SELECT metadata->>$2 AS v FROM sessions WHERE id = $1 FOR UPDATE`, [sessionId, taken.metadataKey]);
    const used = freeFluxUsed(rows[0]?.v ?? null, taken.day);
    if (used > 0) {
      await tx.query(`UPDATE sessions SET metadata = metadata || jsonb_build_object($2::text, $3::text) WHERE id = $1`, [sessionId, taken.metadataKey, `${used - 1}:${taken.day}`]);
    }
    for (const scope of taken.scopes) {
      await tx.query(`UPDATE free_quota_uses SET used = used - 1 WHERE scope = $1 AND day = $2::date AND used > 0`, [scope, taken.day]);
    }
  });
}
