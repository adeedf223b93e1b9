/**
 * Token buckets kept in the database, so a limit holds across gateway processes on one Postgres. A bucket is one
 * row (key, tokens, updated_at); a take is ONE atomic upsert that refills the bucket from the time elapsed since
 * its last update, takes what it may and says how many it took (`granted`, migration 6). Concurrent takes on one
 * key serialise on the row lock, each seeing the tokens the previous one left.
 *
 * Each process leases tokens in blocks so that a busy address does not cost a statement per request
 * (docs/gateway.md "Rate limits"): a take asks for the requests waiting plus a few more, sized by this process's
 * recent demand on the key, and the spare tokens serve the next requests from memory. The limit still holds
 * across processes, because a leased token has left the shared bucket, and stays exact near exhaustion:
 *  - spare tokens are taken only while the bucket is at least half full (LEASE_MARGIN), so a bucket close to
 *    empty is shared token by token, as without leases;
 *  - spare tokens unused after LEASE_MS go back to the bucket (capped at the burst);
 *  - a bucket found empty refuses locally until its next token is due, so a flood of refused requests costs no
 *    statement either.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { RateLimit } from '../env-vars';
import { jsonError, type AppEnv } from '../http';
import type { Queryable } from '../db/types';
import type { ClientAddressFn } from './client-address';

export interface TakeResult {
  allowed: boolean;
  /** Seconds until a token is back (0 when allowed). */
  retryAfterS: number;
}

export interface TakeManyResult {
  /** Tokens taken (0 to need + extra). */
  granted: number;
  /** Tokens left in the bucket after the take (a fraction below 1 when it is empty). */
  left: number;
}

/** How long spare leased tokens are kept before they go back to the shared bucket. */
export const LEASE_MS = 1000;
/** Spare tokens are leased only while the bucket keeps this share of its burst after the take. */
export const LEASE_MARGIN = 0.5;
/** Most spare tokens one take leases (and at most a quarter of the burst). */
export const MAX_LEASE = 256;

// The refill: what was left plus the elapsed seconds times the rate, at most the burst. clock_timestamp() can
// be a little behind updated_at when the row was changed while this statement waited for its lock: GREATEST 0.
const REFILLED = `LEAST($2::float8, rate_limits.tokens + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - rate_limits.updated_at)) * $3::float8)`;
// What a take of `need` ($4) plus `extra` ($5) spare tokens gets from R tokens: all of it while R keeps the margin
// ($6) after it, else only what is needed, as far as R goes.
const grant = (r: string): string => `(CASE WHEN ${r} >= $4::int + $5::int + $6::float8 THEN $4::int + $5::int ELSE LEAST($4::int, floor(${r}))::int END)`;

const TAKE_SQL = `INSERT INTO rate_limits (bucket_key, tokens, updated_at, allowed, granted)
  VALUES ($1, $2::float8 - ${grant('$2::float8')}, clock_timestamp(), ${grant('$2::float8')} > 0, ${grant('$2::float8')})
  ON CONFLICT (bucket_key) DO UPDATE SET
    tokens = ${REFILLED} - ${grant(REFILLED)},
    granted = ${grant(REFILLED)},
    allowed = ${grant(REFILLED)} > 0,
    updated_at = clock_timestamp()
  RETURNING tokens, granted`;

const GIVE_BACK_SQL = `UPDATE rate_limits SET tokens = LEAST($2::float8, tokens + $3::float8) WHERE bucket_key = $1`;

/**
 * Takes up to `need` tokens from the bucket `key` (created full), plus `extra` spare ones while the bucket stays
 * at least `margin` full after it. One statement.
 */
export async function takeTokens(db: Queryable, key: string, limit: RateLimit, need: number, extra = 0, margin = 0): Promise<TakeManyResult> {
  const rows = await db.query<{ tokens: number | string; granted: number | string }>(TAKE_SQL, [key, limit.burst, limit.perMinute / 60, need, extra, margin]);
  const row = rows[0];
  if (!row) throw new Error('rate limit upsert returned no row');
  return { granted: Number(row.granted), left: Number(row.tokens) };
}

function isTakeResult(r: unknown): r is TakeResult {
  return typeof r === 'object' && r !== null && 'allowed' in r;
}

/** Seconds until the bucket, `left` tokens now, has a whole token again. */
function secondsToNext(left: number, limit: RateLimit): number {
  return Math.max(1, Math.ceil((1 - left) / (limit.perMinute / 60)));
}

/** Takes one token from the bucket `key` (created full); never throws for a limited caller, only on database errors. */
export async function takeToken(db: Queryable, key: string, limit: RateLimit): Promise<TakeResult> {
  const r = await takeTokens(db, key, limit, 1);
  return r.granted > 0 ? { allowed: true, retryAfterS: 0 } : { allowed: false, retryAfterS: secondsToNext(r.left, limit) };
}

/** Buckets untouched for this long are full again and can go (the expiry sweep deletes them). */
export function idleBucketSql(): string {
  return `DELETE FROM rate_limits WHERE updated_at < now() - ($1::float8 * interval '1 millisecond')`;
}

/** A request waiting for a take: given its result, or the database error. */
type Waiter = (r: TakeResult | unknown) => void;

/** This process's share of one bucket: leased tokens, requests waiting for a take, recent demand. */
interface LocalBucket {
  tokens: number;
  leaseUntil: number;
  /** The shared bucket was empty: refuse locally until then (ms). */
  emptyUntil: number;
  waiting: Waiter[];
  taking: boolean;
  /** Requests seen in the current and the previous demand window. */
  seen: number;
  seenBefore: number;
  windowStart: number;
}

/**
 * A process's view of the shared buckets of one limit: serves requests from leased tokens, batches the requests
 * that arrive while a take is under way into the next take, and gives spare tokens back.
 */
export class LeasedBuckets {
  private readonly buckets = new Map<string, LocalBucket>();
  private readonly maxLease: number;
  private readonly margin: number;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly limit: RateLimit,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.maxLease = Math.min(MAX_LEASE, Math.floor(limit.burst / 4));
    this.margin = limit.burst * LEASE_MARGIN;
  }

  take(key: string): Promise<TakeResult> {
    const now = Date.now();
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: 0, leaseUntil: 0, emptyUntil: 0, waiting: [], taking: false, seen: 0, seenBefore: 0, windowStart: now };
      this.buckets.set(key, b);
      this.startSweep();
    }
    if (now - b.windowStart >= LEASE_MS) {
      b.seenBefore = now - b.windowStart >= 2 * LEASE_MS ? 0 : b.seen;
      b.seen = 0;
      b.windowStart = now;
    }
    b.seen++;
    if (b.tokens >= 1) {
      b.tokens--;
      return Promise.resolve({ allowed: true, retryAfterS: 0 });
    }
    if (now < b.emptyUntil && b.waiting.length === 0) {
      return Promise.resolve({ allowed: false, retryAfterS: Math.max(1, Math.ceil((b.emptyUntil - now) / 1000)) });
    }
    const bucket = b;
    return new Promise<TakeResult>((resolve, reject) => {
      bucket.waiting.push((r) => (r instanceof Error || !isTakeResult(r) ? reject(r) : resolve(r)));
      if (!bucket.taking) this.refill(key, bucket).catch(() => {}); // the waiters got the error
    });
  }

  /** Takes tokens for the requests waiting (and spare ones for those to come) until none is left waiting. */
  private async refill(key: string, b: LocalBucket): Promise<void> {
    b.taking = true;
    try {
      while (b.waiting.length > 0) {
        const need = b.waiting.length;
        // Spare tokens for about the next quarter of a second of this process's demand on the key (none for a
        // key asked only now and then, whose spare tokens would mostly go back unused).
        const extra = Math.min(this.maxLease, Math.floor((b.seen + b.seenBefore) / 4));
        let r: TakeManyResult;
        try {
          r = await takeTokens(this.db, key, this.limit, need, extra, this.margin);
        } catch (e) {
          for (const w of b.waiting.splice(0)) w(e);
          throw e;
        }
        const now = Date.now();
        let granted = r.granted;
        for (const w of b.waiting.splice(0, need)) {
          if (granted > 0) {
            granted--;
            w({ allowed: true, retryAfterS: 0 });
          } else w({ allowed: false, retryAfterS: secondsToNext(r.left, this.limit) });
        }
        if (granted > 0) {
          b.tokens += granted;
          b.leaseUntil = now + LEASE_MS;
        }
        // Empty: the next token is due when the refill has made up the missing fraction.
        if (r.granted < need) b.emptyUntil = now + ((1 - r.left) / (this.limit.perMinute / 60)) * 1000;
        // Requests that came during the take use the spare tokens first.
        while (b.waiting.length > 0 && b.tokens >= 1) {
          b.tokens--;
          (b.waiting.shift() as Waiter)({ allowed: true, retryAfterS: 0 });
        }
      }
    } finally {
      b.taking = false;
    }
  }

  /** Returns a bucket's unused leased tokens to the database. */
  private async giveBack(key: string, b: LocalBucket): Promise<void> {
    const n = Math.floor(b.tokens);
    b.tokens = 0;
    if (n <= 0) return;
    await this.db.query(GIVE_BACK_SQL, [key, this.limit.burst, n]).catch((e: unknown) => {
      this.log(`rate limit: could not give back ${n} token(s) of ${key}: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  private startSweep(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.sweep(), LEASE_MS);
    this.timer.unref?.();
  }

  /** Gives back expired leases and forgets quiet buckets (no lease, nobody waiting, no recent demand). */
  async sweep(now = Date.now()): Promise<void> {
    const back: Promise<void>[] = [];
    for (const [key, b] of this.buckets) {
      if (b.taking || b.waiting.length > 0) continue;
      if (b.tokens >= 1 && now >= b.leaseUntil) back.push(this.giveBack(key, b));
      if (b.tokens < 1 && now - b.windowStart >= 2 * LEASE_MS && now >= b.emptyUntil) this.buckets.delete(key);
    }
    await Promise.all(back);
    if (this.buckets.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Gives every lease back and stops the sweep (the gateway is closing). */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.buckets].map(([key, b]) => this.giveBack(key, b)));
    this.buckets.clear();
  }
}

export interface Limiter {
  /** Null when the request may go on; else the 429 answer (Retry-After set). */
  check(c: Context<AppEnv>): Promise<Response | null>;
  /** The same as middleware, for POST only (GET, HEAD and OPTIONS pass). */
  middleware: MiddlewareHandler<AppEnv>;
  /** Gives leased tokens back (the gateway is closing). */
  close(): Promise<void>;
}

/**
 * A per-address limiter named `name` ('sessions', 'costly'). Requests without an address (in process, no socket)
 * and a limit with perMinute 0 are not limited.
 */
export function createLimiter(
  db: Queryable,
  name: string,
  limit: RateLimit,
  address: ClientAddressFn,
  what: string,
  log?: (line: string) => void,
): Limiter {
  const buckets = new LeasedBuckets(db, limit, log);
  const check = async (c: Context<AppEnv>): Promise<Response | null> => {
    if (limit.perMinute <= 0) return null;
    const addr = address(c);
    if (addr === null) return null;
    const r = await buckets.take(`${name}:${addr}`);
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
    close: () => buckets.close(),
  };
}
