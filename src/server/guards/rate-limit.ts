/**
 * Token buckets kept in the database, so a limit holds across gateway processes on one Postgres. A bucket is one
 * row (key, tokens, updated_at); each check is ONE atomic upsert that refills the bucket from the time elapsed
 * since its last update, takes a token when one is there, and says whether it did. Concurrent checks on one key
 * serialise on the row lock, each seeing the tokens the previous one left.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { RateLimit } from '../config';
import { jsonError, type AppEnv } from '../context';
import type { Queryable } from '../db/types';
import type { ClientAddressFn } from './client-address';

export interface TakeResult {
  allowed: boolean;
  /** Seconds until a token is back (0 when allowed). */
  retryAfterS: number;
}

interface BucketRow {
  [k: string]: unknown;
  tokens: number | string;
  allowed: boolean;
}

// The refill: what was left plus the elapsed seconds times the rate, at most the burst. clock_timestamp() can
// be a little behind updated_at when the row was changed while this statement waited for its lock: GREATEST 0.
const REFILLED = `LEAST($2::float8, rate_limits.tokens + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - rate_limits.updated_at)) * $3::float8)`;

const TAKE_SQL = `INSERT INTO rate_limits (bucket_key, tokens, updated_at, allowed)
  VALUES ($1, $2::float8 - 1, clock_timestamp(), true)
  ON CONFLICT (bucket_key) DO UPDATE SET
    tokens = CASE WHEN ${REFILLED} >= 1 THEN ${REFILLED} - 1 ELSE ${REFILLED} END,
    allowed = ${REFILLED} >= 1,
    updated_at = clock_timestamp()
  RETURNING tokens, allowed`;

/** Takes one token from the bucket `key` (created full); never throws for a limited caller, only on database errors. */
export async function takeToken(db: Queryable, key: string, limit: RateLimit): Promise<TakeResult> {
  const perSecond = limit.perMinute / 60;
  const rows = await db.query<BucketRow>(TAKE_SQL, [key, limit.burst, perSecond]);
  const row = rows[0];
  if (!row) throw new Error('rate limit upsert returned no row');
  if (row.allowed) return { allowed: true, retryAfterS: 0 };
  const missing = 1 - Number(row.tokens);
  return { allowed: false, retryAfterS: Math.max(1, Math.ceil(missing / perSecond)) };
}

/** Buckets untouched for this long are full again and can go (the expiry sweep deletes them). */
export function idleBucketSql(): string {
  return `DELETE FROM rate_limits WHERE updated_at < now() - ($1::float8 * interval '1 millisecond')`;
}

export interface Limiter {
  /** Null when the request may go on; else the 429 answer (Retry-After set). */
  check(c: Context<AppEnv>): Promise<Response | null>;
  /** The same as middleware, for POST only (GET, HEAD and OPTIONS pass). */
  middleware: MiddlewareHandler<AppEnv>;
}

/**
 * A per-address limiter named `name` ('sessions', 'costly'). Requests without an address (in process, no socket)
 * and a limit with perMinute 0 are not limited.
 */
export function createLimiter(db: Queryable, name: string, limit: RateLimit, address: ClientAddressFn, what: string): Limiter {
  const check = async (c: Context<AppEnv>): Promise<Response | null> => {
    if (limit.perMinute <= 0) return null;
    const addr = address(c);
    if (addr === null) return null;
    const r = await takeToken(db, `${name}:${addr}`, limit);
    if (r.allowed) return null;
    c.header('Retry-After', String(r.retryAfterS));
    return jsonError(c, 429, 'RATE_LIMITED', `Too many ${what} from your address; try again in ${r.retryAfterS} s`);
  };
  return {
    check,
    middleware: async (c, next) => {
      if (c.req.method === 'POST') {
        const refused = await check(c);
        if (refused) return refused;
      }
      await next();
    },
  };
}
