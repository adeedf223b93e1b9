/**
 * Holds: reserve a request's maximum cost before the upstream is called, settle the actual cost when the reply
 * ends and give back the rest (docs/gateway.md, "Holds"). This is what makes concurrent requests unable to
 * overspend: the money a request may use leaves the balance, under the same conditional UPDATE as a charge, before
 * any work is done for it, so the sum of what runs at once can never exceed what the session holds.
 *
 *  - reserve: one statement. Lock the session row, pick the source (USD if the USD balance covers the whole
 *    maximum, else nano at the configured price, else a shortfall and nothing changes), INSERT the hold
 *    (`hold_key` UNIQUE: reserving a key twice returns the first hold), then take the amount from the locked row
 *    (the balance's CHECK (>= 0) fails the whole statement rather than overdraw).
 *  - settle: one statement. `UPDATE ledger_holds SET status = 'settled' WHERE status = 'held'` claims the hold
 *    (a second settle finds nothing to claim and returns the first result), the unused part goes back to the
 *    balance, and one `ledger_entries` charge records what was taken (at most the hold: the hold is the most a
 *    request can cost).
 *  - release: one statement gives the whole hold back (nothing produced, a stall, an upstream refusal).
 *  - sweep: one statement expires holds past their `expires_at` (a gateway died with them open) and gives their
 *    money back. Rows are claimed with `FOR UPDATE SKIP LOCKED`, so several gateways may sweep at once.
 *
 * Lock order everywhere: hold row, then session row (reserve inserts a new hold row, which no one else can hold),
 * so settle, release and sweep cannot deadlock each other on a real Postgres.
 */
import type { Queryable } from '../db/types';
import { usdMicroToNanoRaw } from './amounts';
import type { Balance } from './ledger';
import { jsonParam } from '../db/json-param';

export type HoldSource = 'USD' | 'nano';
export type HoldStatus = 'held' | 'settled' | 'released' | 'expired';

export interface ReserveRequest {
  /** Idempotency key of the hold; the settle's ledger entry uses the same key. */
  key: string;
  /** The most the request may cost, in micro-dollars. */
  maxUsdMicro: bigint;
  /** After this long an unsettled hold is released by a sweep (its gateway is taken for dead). */
  ttlMs: number;
  /**
   * A balance the session must be above, in USD or in nano, besides covering the hold (the spec's paid-use
   * threshold, 0.00001). Checked on the locked row.
   */
  above?: { usdMicro: bigint; nanoRaw: bigint };
  note?: string;
}

export interface Hold {
  key: string;
  sessionId: string;
  source: HoldSource;
  maxUsdMicro: bigint;
  heldUsdMicro: bigint;
  heldNanoRaw: bigint;
}

export type ReserveResult =
  | { ok: true; hold: Hold; duplicate: boolean; balance: Balance }
  | { ok: false; requiredUsdMicro: bigint; requiredNanoRaw: bigint; balance: Balance };

/** What a settle took, in the shape of a charge (ChargeResult is built from it by the Ledger). */
export interface SettleOutcome {
  sessionId: string;
  source: HoldSource;
  takenUsdMicro: bigint;
  takenNanoRaw: bigint;
  nanoPriceUsdMicro: bigint;
  requestedUsdMicro: bigint;
  balance: Balance;
  entryId: string;
}

interface HoldRow {
  [k: string]: unknown;
  session_id: string;
  source: string;
  max_usd_micro: string;
  held_usd_micro: string;
  held_nano_raw: string;
  nano_price_usd_micro: string;
}

const HOLD_COLUMNS = `session_id, source, max_usd_micro::text AS max_usd_micro, held_usd_micro::text AS held_usd_micro,
  held_nano_raw::text AS held_nano_raw, nano_price_usd_micro::text AS nano_price_usd_micro`;

function holdOf(key: string, r: HoldRow): Hold {
  return {
    key,
    sessionId: r.session_id,
    source: r.source as HoldSource,
    maxUsdMicro: BigInt(r.max_usd_micro),
    heldUsdMicro: BigInt(r.held_usd_micro),
    heldNanoRaw: BigInt(r.held_nano_raw),
  };
}

/**
 * Reserve; see the file comment. One statement (it sits before every paid reply's first token): lock the session
 * row and pick the source, insert the hold, take its amount. A statement is atomic, and the balance's
 * CHECK (>= 0) would fail the whole of it rather than let the UPDATE overdraw; the locked row cannot change between
 * the choice and the UPDATE. Returns null when the session does not exist.
 */
export async function reserveHold(
  q: Queryable,
  sessionId: string,
  req: ReserveRequest,
  nanoPriceUsdMicro: bigint,
): Promise<ReserveResult | null> {
  const raw = usdMicroToNanoRaw(req.maxUsdMicro, nanoPriceUsdMicro);
  const above = req.above ?? { usdMicro: -1n, nanoRaw: -1n };
  const rows = await q.query<{ usd_micro: string; nano_raw: string; source: string | null; usd_after: string | null; nano_after: string | null }>(
    `WITH s AS (
       SELECT id, usd_micro, nano_raw,
         CASE WHEN usd_micro >= $3::bigint AND usd_micro > $5::bigint THEN 'USD'
              WHEN nano_raw >= $4::numeric AND nano_raw > $6::numeric THEN 'nano' END AS source
       FROM sessions WHERE id = $2 FOR UPDATE
     ), h AS (
       INSERT INTO ledger_holds (hold_key, session_id, source, max_usd_micro, held_usd_micro, held_nano_raw,
         nano_price_usd_micro, note, expires_at)
       SELECT $1, s.id, s.source, $3::bigint,
         CASE WHEN s.source = 'USD' THEN $3::bigint ELSE 0 END,
         CASE WHEN s.source = 'nano' THEN $4::numeric ELSE 0 END,
         $7::bigint, $8, now() + $9::bigint * interval '1 millisecond'
       FROM s WHERE s.source IS NOT NULL
       ON CONFLICT (hold_key) DO NOTHING
       RETURNING session_id, held_usd_micro, held_nano_raw
     ), u AS (
       UPDATE sessions SET usd_micro = sessions.usd_micro - h.held_usd_micro, nano_raw = sessions.nano_raw - h.held_nano_raw
       FROM h WHERE sessions.id = h.session_id
       RETURNING sessions.usd_micro, sessions.nano_raw
     )
     SELECT s.usd_micro::text AS usd_micro, s.nano_raw::text AS nano_raw, s.source,
       (SELECT usd_micro::text FROM u) AS usd_after, (SELECT nano_raw::text FROM u) AS nano_after
     FROM s`,
    [req.key, sessionId, req.maxUsdMicro.toString(), raw.toString(), above.usdMicro.toString(), above.nanoRaw.toString(),
      nanoPriceUsdMicro.toString(), req.note ?? null, String(Math.max(0, Math.round(req.ttlMs)))],
  );
  const row = rows[0];
  if (!row) return null;
  const bal: Balance = { usdMicro: BigInt(row.usd_micro), nanoRaw: BigInt(row.nano_raw) };
  if (row.usd_after !== null && row.nano_after !== null && row.source !== null) {
    const source = row.source as HoldSource;
    return {
      ok: true,
      duplicate: false,
      hold: {
        key: req.key,
        sessionId,
        source,
        maxUsdMicro: req.maxUsdMicro,
        heldUsdMicro: source === 'USD' ? req.maxUsdMicro : 0n,
        heldNanoRaw: source === 'nano' ? raw : 0n,
      },
      balance: { usdMicro: BigInt(row.usd_after), nanoRaw: BigInt(row.nano_after) },
    };
  }
  // Not taken: the key was reserved before (return that hold), or the balance is short.
  const existing = await findHold(q, req.key);
  if (existing) {
    if (existing.sessionId !== sessionId) throw new HoldKeyError(req.key);
    return { ok: true, hold: existing, duplicate: true, balance: bal };
  }
  return { ok: false, requiredUsdMicro: req.maxUsdMicro, requiredNanoRaw: raw, balance: bal };
}

/** One reserve of a batch (reserveHoldsInUsd). */
export interface BatchedReserve {
  sessionId: string;
  req: ReserveRequest;
}

/**
 * Many reserves in one statement (group commit: the reserves that arrive in one turn of the event loop; the
 * Ledger batches them with db/batcher.ts). Only the plain case is decided here: holds taken from USD, in arrival
 * order, while each session's locked USD balance covers the running sum of its holds of the batch and stays above
 * the paid-use threshold. Any other reserve of the batch (a short or nano balance, a key already held or twice in
 * the batch, an unknown session) is not taken and gets null: the caller reserves it alone with reserveHold, after
 * this statement committed, which decides it exactly as before. So a batch never takes more than a balance holds
 * (the sum of its holds of one session is at most the balance read under FOR UPDATE), and it is at worst more
 * careful than one-by-one (a hold after a conflicting key counts that key's amount), never less.
 *
 * A taken hold's `balance` is the balance after the holds of the batch up to and including it.
 */
export async function reserveHoldsInUsd(q: Queryable, items: readonly BatchedReserve[], nanoPriceUsdMicro: bigint): Promise<(ReserveResult | null)[]> {
  const seen = new Set<string>();
  const rows: { i: number; k: string; s: string; m: string; a: string; n: string | null; t: string }[] = [];
  items.forEach((it, i) => {
    if (seen.has(it.req.key)) return; // the same key twice: the later ones are decided alone (a duplicate)
    seen.add(it.req.key);
    const above = it.req.above?.usdMicro ?? -1n;
    rows.push({ i, k: it.req.key, s: it.sessionId, m: it.req.maxUsdMicro.toString(), a: above.toString(), n: it.req.note ?? null, t: String(Math.max(0, Math.round(it.req.ttlMs))) });
  });
  const taken = await q.query<{ i: number; usd_before: string; nano_before: string }>(
    `WITH x AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS x(i int, k text, s text, m bigint, a bigint, n text, t bigint)
     ), s AS (
       SELECT id, usd_micro, nano_raw FROM sessions WHERE id IN (SELECT s FROM x) ORDER BY id FOR UPDATE
     ), c AS (
       SELECT x.*, s.usd_micro AS bal, s.nano_raw AS nano, sum(x.m) OVER (PARTITION BY x.s ORDER BY x.i) AS cum
       FROM x JOIN s ON s.id = x.s
     ), h AS (
       INSERT INTO ledger_holds (hold_key, session_id, source, max_usd_micro, held_usd_micro, held_nano_raw,
         nano_price_usd_micro, note, expires_at)
       SELECT c.k, c.s, 'USD', c.m, c.m, 0, $2::bigint, c.n, now() + c.t * interval '1 millisecond'
       FROM c WHERE c.cum <= c.bal AND c.bal - (c.cum - c.m) > c.a
       ON CONFLICT (hold_key) DO NOTHING
       RETURNING hold_key, session_id, held_usd_micro
     ), u AS (
       UPDATE sessions SET usd_micro = sessions.usd_micro - g.total
       FROM (SELECT session_id, sum(held_usd_micro) AS total FROM h GROUP BY session_id) g
       WHERE sessions.id = g.session_id
       RETURNING sessions.id
     )
     SELECT c.i, c.bal::text AS usd_before, c.nano::text AS nano_before
     FROM c JOIN h ON h.hold_key = c.k
     ORDER BY c.i`,
    [jsonParam(rows), nanoPriceUsdMicro.toString()],
  );
  const out: (ReserveResult | null)[] = items.map(() => null);
  // The balance after each taken hold: the locked balance less the session's taken holds so far, in order.
  const left = new Map<string, bigint>();
  for (const t of taken) {
    const it = items[t.i] as BatchedReserve;
    const usd = (left.get(it.sessionId) ?? BigInt(t.usd_before)) - it.req.maxUsdMicro;
    left.set(it.sessionId, usd);
    out[t.i] = {
      ok: true,
      duplicate: false,
      hold: { key: it.req.key, sessionId: it.sessionId, source: 'USD', maxUsdMicro: it.req.maxUsdMicro, heldUsdMicro: it.req.maxUsdMicro, heldNanoRaw: 0n },
      balance: { usdMicro: usd, nanoRaw: BigInt(t.nano_before) },
    };
  }
  return out;
}

export class HoldKeyError extends Error {
  override name = 'HoldKeyError';
  constructor(readonly key: string) {
    super(`Hold key '${key}' was already used for another session or operation`);
  }
}

async function findHold(q: Queryable, key: string): Promise<Hold | null> {
  const rows = await q.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM ledger_holds WHERE hold_key = $1`, [key]);
  const r = rows[0];
  return r ? holdOf(key, r) : null;
}

/** The settle's amounts, in SQL: min(actual, maximum) from the hold's source; nano at the hold's price, rounded up. */
const SETTLE_SQL = `WITH h AS (
    UPDATE ledger_holds SET status = 'settled', closed_at = now(), settled_usd_micro = LEAST($2::bigint, max_usd_micro)
    WHERE hold_key = $1 AND status = 'held'
    RETURNING session_id, source, held_usd_micro, held_nano_raw, nano_price_usd_micro,
      CASE WHEN source = 'USD' THEN LEAST($2::bigint, max_usd_micro) ELSE 0 END AS taken_usd,
      CASE WHEN source = 'nano' THEN LEAST(held_nano_raw,
        div(LEAST($2::bigint, max_usd_micro)::numeric * ${10n ** 30n}::numeric + nano_price_usd_micro - 1, nano_price_usd_micro))
      ELSE 0 END AS taken_nano
  ), u AS (
    UPDATE sessions s SET usd_micro = s.usd_micro + h.held_usd_micro - h.taken_usd,
      nano_raw = s.nano_raw + h.held_nano_raw - h.taken_nano, num_replies = s.num_replies + $3
    FROM h WHERE s.id = h.session_id
    RETURNING s.id, s.usd_micro, s.nano_raw
  ), e AS (
    INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, status, source,
      applied_usd_micro, applied_nano_raw, usd_after_micro, nano_after_raw, counts_reply, note)
    SELECT $1, h.session_id, 'charge', $2::bigint, 'applied', h.source, h.taken_usd, h.taken_nano, u.usd_micro, u.nano_raw, $3 > 0, $4
    FROM h JOIN u ON u.id = h.session_id
    RETURNING id
  )
  SELECT h.session_id, h.source, h.taken_usd::text AS taken_usd, h.taken_nano::text AS taken_nano,
    h.nano_price_usd_micro::text AS nano_price_usd_micro, u.usd_micro::text AS usd_micro, u.nano_raw::text AS nano_raw,
    (SELECT id::text FROM e) AS entry_id
  FROM h JOIN u ON u.id = h.session_id`;

/** A unique violation (SQLSTATE 23505), from PGlite or postgres.js. */
function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';
}

/**
 * Settles an open hold: takes min(actual, maximum) and gives back the rest, records the charge entry under the
 * hold's key, in ONE statement (it is atomic: if the entry's key was already used by another operation, the
 * unique violation undoes the whole of it and the hold stays open). Returns null when the hold is not open
 * (settled before, released, expired or unknown): the Ledger then answers from the earlier entry or charges
 * without a hold.
 */
export async function settleHold(
  q: Queryable,
  key: string,
  actualUsdMicro: bigint,
  opts: { countReply: boolean; note: string | null },
): Promise<SettleOutcome | null> {
  let rows;
  try {
    rows = await q.query<{ session_id: string; source: string; taken_usd: string; taken_nano: string; nano_price_usd_micro: string; usd_micro: string; nano_raw: string; entry_id: string | null }>(
      SETTLE_SQL,
      [key, actualUsdMicro.toString(), opts.countReply ? 1 : 0, opts.note],
    );
  } catch (e) {
    if (isUniqueViolation(e)) throw new HoldKeyError(key);
    throw e;
  }
  const r = rows[0];
  if (!r) return null;
  if (r.entry_id === null) throw new Error(`Settle of hold '${key}' wrote no ledger entry`);
  return {
    sessionId: r.session_id,
    source: r.source as HoldSource,
    takenUsdMicro: BigInt(r.taken_usd),
    takenNanoRaw: BigInt(r.taken_nano),
    nanoPriceUsdMicro: BigInt(r.nano_price_usd_micro),
    requestedUsdMicro: actualUsdMicro,
    balance: { usdMicro: BigInt(r.usd_micro), nanoRaw: BigInt(r.nano_raw) },
    entryId: r.entry_id,
  };
}

/** One settle of a batch (settleHolds). */
export interface BatchedSettle {
  sessionId: string;
  key: string;
  actualUsdMicro: bigint;
  countReply: boolean;
  note: string | null;
}

/**
 * Many settles in one statement (group commit, as reserveHoldsInUsd): each open hold of the batch is claimed,
 * charged min(actual, its maximum) from its source with the rest given back, and recorded by one charge entry,
 * exactly as settleHold does one; each session's balance moves once by the sum of its holds, and each entry's
 * balance-after is that session's balance after the batch's holds up to and including it. A settle whose hold is not
 * open (settled, released, expired), belongs to another session or is twice in the batch gets null, and is settled
 * alone after this statement (settleHold and what follows it in the Ledger). If the statement fails (an entry key
 * already taken), nothing of it is kept and every settle of the batch is done alone.
 */
export async function settleHolds(q: Queryable, items: readonly BatchedSettle[]): Promise<(SettleOutcome | null)[]> {
  const seen = new Set<string>();
  const rows: { i: number; k: string; s: string; a: string; r: number; n: string | null }[] = [];
  items.forEach((it, i) => {
    if (seen.has(it.key)) return;
    seen.add(it.key);
    rows.push({ i, k: it.key, s: it.sessionId, a: it.actualUsdMicro.toString(), r: it.countReply ? 1 : 0, n: it.note });
  });
  const done = await q.query<{ i: number; source: string; taken_usd: string; taken_nano: string; nano_price_usd_micro: string; usd_after: string; nano_after: string; entry_id: string }>(
    `WITH x AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS x(i int, k text, s text, a bigint, r int, n text)
     ), h AS (
       UPDATE ledger_holds lh SET status = 'settled', closed_at = now(), settled_usd_micro = LEAST(x.a, lh.max_usd_micro)
       FROM x WHERE lh.hold_key = x.k AND lh.session_id = x.s AND lh.status = 'held'
       RETURNING x.i, x.k, x.a, x.r, x.n, lh.session_id, lh.source, lh.held_usd_micro, lh.held_nano_raw, lh.nano_price_usd_micro,
         CASE WHEN lh.source = 'USD' THEN LEAST(x.a, lh.max_usd_micro) ELSE 0 END AS taken_usd,
         CASE WHEN lh.source = 'nano' THEN LEAST(lh.held_nano_raw,
           div(LEAST(x.a, lh.max_usd_micro)::numeric * ${10n ** 30n}::numeric + lh.nano_price_usd_micro - 1, lh.nano_price_usd_micro))
         ELSE 0 END AS taken_nano
     ), g AS (
       SELECT session_id, sum(held_usd_micro - taken_usd) AS du, sum(held_nano_raw - taken_nano) AS dn, sum(r) AS nr
       FROM h GROUP BY session_id
     ), u AS (
       UPDATE sessions s SET usd_micro = s.usd_micro + g.du, nano_raw = s.nano_raw + g.dn, num_replies = s.num_replies + g.nr
       FROM g WHERE s.id = g.session_id
       RETURNING s.id, s.usd_micro, s.nano_raw
     ), w AS (
       SELECT h.*,
         u.usd_micro - COALESCE(sum(h.held_usd_micro - h.taken_usd) OVER later, 0) AS usd_after,
         u.nano_raw - COALESCE(sum(h.held_nano_raw - h.taken_nano) OVER later, 0) AS nano_after
       FROM h JOIN u ON u.id = h.session_id
       WINDOW later AS (PARTITION BY h.session_id ORDER BY h.i ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
     ), e AS (
       INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, status, source,
         applied_usd_micro, applied_nano_raw, usd_after_micro, nano_after_raw, counts_reply, note)
       SELECT w.k, w.session_id, 'charge', w.a, 'applied', w.source, w.taken_usd, w.taken_nano, w.usd_after, w.nano_after, w.r > 0, w.n
       FROM w
       RETURNING idempotency_key, id
     )
     SELECT w.i, w.source, w.taken_usd::text AS taken_usd, w.taken_nano::text AS taken_nano,
       w.nano_price_usd_micro::text AS nano_price_usd_micro, w.usd_after::text AS usd_after, w.nano_after::text AS nano_after,
       e.id::text AS entry_id
     FROM w JOIN e ON e.idempotency_key = w.k`,
    [jsonParam(rows)],
  );
  const out: (SettleOutcome | null)[] = items.map(() => null);
  for (const d of done) {
    const it = items[d.i] as BatchedSettle;
    out[d.i] = {
      sessionId: it.sessionId,
      source: d.source as HoldSource,
      takenUsdMicro: BigInt(d.taken_usd),
      takenNanoRaw: BigInt(d.taken_nano),
      nanoPriceUsdMicro: BigInt(d.nano_price_usd_micro),
      requestedUsdMicro: it.actualUsdMicro,
      balance: { usdMicro: BigInt(d.usd_after), nanoRaw: BigInt(d.nano_after) },
      entryId: d.entry_id,
    };
  }
  return out;
}

/**
 * Gives an open hold back in full; true if it was open (a second release, or a release after a settle, is a
 * no-op). `forget` deletes the hold instead of marking it released: for a request that never reached its upstream,
 * so that the same key can be reserved again when the request is retried.
 */
export async function releaseHold(q: Queryable, key: string, forget = false): Promise<boolean> {
  const claim = forget
    ? `DELETE FROM ledger_holds WHERE hold_key = $1 AND status = 'held'`
    : `UPDATE ledger_holds SET status = 'released', closed_at = now(), settled_usd_micro = 0 WHERE hold_key = $1 AND status = 'held'`;
  const rows = await q.query<{ id: string }>(
    `WITH h AS (
       ${claim}
       RETURNING session_id, held_usd_micro, held_nano_raw
     )
     UPDATE sessions s SET usd_micro = s.usd_micro + h.held_usd_micro, nano_raw = s.nano_raw + h.held_nano_raw
     FROM h WHERE s.id = h.session_id
     RETURNING s.id`,
    [key],
  );
  return rows.length > 0;
}

/**
 * Pushes back the expiry of open holds (of calls still running in this process), so that only the holds of a
 * gateway that died ever expire. One statement for all of them.
 */
export async function renewHolds(q: Queryable, keys: readonly string[], ttlMs: number): Promise<void> {
  if (keys.length === 0) return;
  await q.query(
    `UPDATE ledger_holds SET expires_at = now() + $2::bigint * interval '1 millisecond'
     WHERE hold_key IN (SELECT jsonb_array_elements_text($1::text::jsonb)) AND status = 'held'`,
    [jsonParam(keys), String(Math.max(0, Math.round(ttlMs)))],
  );
}

/**
 * Expires open holds past their `expires_at` (at most `limit`, optionally of one session) and gives their money
 * back; returns how many. Safe to run from several gateways at once (SKIP LOCKED) and at any time: a hold being
 * settled right now is locked and skipped.
 */
export async function sweepExpiredHolds(q: Queryable, opts: { limit: number; sessionId?: string }): Promise<number> {
  const rows = await q.query<{ n: string }>(
    `WITH claimed AS (
       SELECT id FROM ledger_holds
       WHERE status = 'held' AND expires_at <= now() AND ($2::text IS NULL OR session_id = $2::text)
       ORDER BY expires_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), done AS (
       UPDATE ledger_holds h SET status = 'expired', closed_at = now(), settled_usd_micro = 0
       FROM claimed WHERE h.id = claimed.id
       RETURNING h.session_id, h.held_usd_micro, h.held_nano_raw
     ), per AS (
       SELECT session_id, sum(held_usd_micro) AS usd, sum(held_nano_raw) AS nano FROM done GROUP BY session_id
     ), back AS (
       UPDATE sessions s SET usd_micro = s.usd_micro + per.usd, nano_raw = s.nano_raw + per.nano
       FROM per WHERE s.id = per.session_id
       RETURNING s.id
     )
     SELECT (SELECT count(*) FROM done)::text AS n, (SELECT count(*) FROM back)::text AS sessions`,
    [opts.limit, opts.sessionId ?? null],
  );
  return Number(rows[0]?.n ?? 0);
}

export interface HoldRowView {
  key: string;
  status: HoldStatus;
  source: HoldSource;
  maxUsdMicro: bigint;
  settledUsdMicro: bigint | null;
  createdAt: string;
  expiresAt: string;
}

/** The latest holds of a session, newest first (admin `show`). */
export async function listHolds(q: Queryable, sessionId: string, limit: number): Promise<HoldRowView[]> {
  const rows = await q.query<{ hold_key: string; status: string; source: string; max_usd_micro: string; settled_usd_micro: string | null; created_at: string; expires_at: string }>(
    `SELECT hold_key, status, source, max_usd_micro::text AS max_usd_micro, settled_usd_micro::text AS settled_usd_micro,
       created_at::text AS created_at, expires_at::text AS expires_at
     FROM ledger_holds WHERE session_id = $1 ORDER BY id DESC LIMIT $2`,
    [sessionId, limit],
  );
  return rows.map((r) => ({
    key: r.hold_key,
    status: r.status as HoldStatus,
    source: r.source as HoldSource,
    maxUsdMicro: BigInt(r.max_usd_micro),
    settledUsdMicro: r.settled_usd_micro === null ? null : BigInt(r.settled_usd_micro),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  }));
}
