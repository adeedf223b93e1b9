/**
 * The balance ledger (DESIGN rule 9). Every charge and credit is one row of `ledger_entries` with a unique
 * idempotency key, written in the same transaction as the balance change:
 *
 *  1. Lock the session row (SELECT ... FOR UPDATE) and decide what the charge takes from the balance read.
 *  2. INSERT the entry with that outcome ... ON CONFLICT (idempotency_key) DO NOTHING. No row back = the key was
 *     applied before: return that earlier result (duplicate: true) and change nothing.
 *  3. Apply it with a conditional UPDATE (`WHERE usd_micro >= $amount AND nano_raw >= $raw`), so a balance can
 *     never go below zero, however many charges race; a CHECK (usd_micro >= 0) constraint backs this up.
 *  A charge of 0 (free models) changes no balance and is one statement (chargeNothing).
 *
 * Charge order (docs/gateway.md, "Which balance pays"): USD if the USD balance covers the cost; else nano at the
 * configured nano price if the nano balance covers it; else nothing is taken (status 'insufficient').
 *
 * Replies do not charge after the fact: they reserve their maximum cost first (`reserve`, a hold) and `settle` the
 * actual cost when they end (./holds.ts). `charge` remains for costs known up front and for a settle whose hold
 * has already expired.
 */
import { Batcher } from '../db/batcher';
import type { Db, Queryable } from '../db/types';
import { nanoRawToUsdMicro, usdMicroToNanoRaw } from './amounts';
import { FreeReplyLog } from './free-replies';
import {
  HoldKeyError,
  listHolds,
  releaseHold,
  renewHolds,
  reserveHold,
  reserveHoldsInUsd,
  settleHold,
  settleHolds,
  type BatchedReserve,
  type BatchedSettle,
  type SettleOutcome,
  sweepExpiredHolds,
  type HoldRowView,
  type ReserveRequest,
  type ReserveResult,
} from './holds';

export type ChargeStatus = 'applied' | 'insufficient';
export type ChargeSource = 'USD' | 'nano' | 'mixed' | 'none';

export interface Balance {
  usdMicro: bigint;
  nanoRaw: bigint;
}

export interface ChargeRequest {
  /** Idempotency key, unique across the whole ledger. */
  key: string;
  usdMicro: bigint;
  /** Also count one reply (sessions.num_replies), once per key. */
  countReply?: boolean;
  note?: string;
}

export interface ChargeResult {
  status: ChargeStatus;
  /** True when this key was applied before: nothing changed now; the fields describe the earlier result. */
  duplicate: boolean;
  source: ChargeSource;
  chargedUsdMicro: bigint;
  chargedNanoRaw: bigint;
  /** USD value of what was taken (nano valued at the price used at the time). */
  chargedUsdValueMicro: bigint;
  requestedUsdMicro: bigint;
  balance: Balance;
  entryId: string;
}

export interface CreditRequest {
  key: string;
  usdMicro?: bigint;
  nanoRaw?: bigint;
  note?: string;
}

export interface CreditResult {
  duplicate: boolean;
  creditedUsdMicro: bigint;
  creditedNanoRaw: bigint;
  balance: Balance;
  entryId: string;
}

export class UnknownSessionError extends Error {
  override name = 'UnknownSessionError';
  constructor(readonly sessionId: string) {
    super(`Unknown session '${sessionId}'`);
  }
}

export class LedgerInputError extends Error {
  override name = 'LedgerInputError';
}

export interface LedgerOptions {
  /** Nano price in micro-dollars per XNO (PARLEY_NANO_USD_PRICE). */
  nanoPriceUsdMicro: bigint;
  log?: (line: string) => void;
}

interface EntryRow {
  [k: string]: unknown;
  id: string;
  session_id: string;
  kind: string;
  status: string;
  source: string | null;
  requested_usd_micro: string;
  applied_usd_micro: string;
  applied_nano_raw: string;
  usd_after_micro: string | null;
  nano_after_raw: string | null;
}

interface BalanceRow {
  [k: string]: unknown;
  usd_micro: string;
  nano_raw: string;
}

const ENTRY_COLUMNS = `id::text AS id, session_id, kind, status, source, requested_usd_micro::text AS requested_usd_micro,
  applied_usd_micro::text AS applied_usd_micro, applied_nano_raw::text AS applied_nano_raw,
  usd_after_micro::text AS usd_after_micro, nano_after_raw::text AS nano_after_raw`;

function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new LedgerInputError('Idempotency key must be 1 to 200 characters');
  }
}

function checkAmount(v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v < 0n) throw new LedgerInputError(`${what} must be a non-negative integer`);
}

export class Ledger {
  /** The $0 entries of free replies, written behind in batches (./free-replies.ts). */
  readonly freeReplies: FreeReplyLog;
  /** Reserves arriving in one turn share one statement (holds.ts, reserveHoldsInUsd); a lone one runs alone. */
  private readonly reserves: Batcher<BatchedReserve, ReserveResult | null>;
  /** Settles arriving in one turn share one statement (holds.ts, settleHolds); a lone one runs alone. */
  private readonly settles: Batcher<BatchedSettle, SettleOutcome | null>;

  constructor(
    private readonly db: Db,
    private readonly options: LedgerOptions,
  ) {
    if (options.nanoPriceUsdMicro <= 0n) throw new LedgerInputError('Nano price must be above 0');
    this.freeReplies = new FreeReplyLog(db, options.log);
    this.reserves = new Batcher(async (items) =>
      items.length === 1 ? [null] : reserveHoldsInUsd(this.db, items, this.options.nanoPriceUsdMicro),
    );
    // A batch that fails (a key already naming another entry) leaves every settle of it to be done alone.
    this.settles = new Batcher(async (items) => (items.length === 1 ? [null] : settleHolds(this.db, items).catch(() => items.map(() => null))));
  }

  /** Writes what is queued (free replies' entries); the database may close after. */
  close(): Promise<void> {
    return this.freeReplies.close();
  }

  get nanoPriceUsdMicro(): bigint {
    return this.options.nanoPriceUsdMicro;
  }

  async balance(sessionId: string, q: Queryable = this.db): Promise<Balance> {
    const rows = await q.query<BalanceRow>(
      'SELECT usd_micro::text AS usd_micro, nano_raw::text AS nano_raw FROM sessions WHERE id = $1',
      [sessionId],
    );
    const r = rows[0];
    if (!r) throw new UnknownSessionError(sessionId);
    return { usdMicro: BigInt(r.usd_micro), nanoRaw: BigInt(r.nano_raw) };
  }

  /** Charges a session; see the file comment for the rules. Safe to call concurrently and to retry. */
  async charge(sessionId: string, req: ChargeRequest): Promise<ChargeResult> {
    checkKey(req.key);
    checkAmount(req.usdMicro, 'Charge amount');
    if (req.usdMicro === 0n) return this.chargeNothing(sessionId, req);
    const price = this.options.nanoPriceUsdMicro;
    return this.db.transaction(async (tx) => {
      // Lock the session row: concurrent charges of one session queue here, so the amounts decided below are
      // exact. The UPDATE further down is conditional all the same.
      const locked = await tx.query<BalanceRow>(
        'SELECT usd_micro::text AS usd_micro, nano_raw::text AS nano_raw FROM sessions WHERE id = $1 FOR UPDATE',
        [sessionId],
      );
      const row = locked[0];
      if (!row) throw new UnknownSessionError(sessionId);
      const bal: Balance = { usdMicro: BigInt(row.usd_micro), nanoRaw: BigInt(row.nano_raw) };

      const amount = req.usdMicro;
      let status: ChargeStatus = 'insufficient';
      let source: ChargeSource = 'none';
      let takenUsd = 0n;
      let takenNano = 0n;
      const raw = usdMicroToNanoRaw(amount, price);
      if (bal.usdMicro >= amount) {
        status = 'applied';
        source = 'USD';
        takenUsd = amount;
      } else if (bal.nanoRaw >= raw) {
        status = 'applied';
        source = 'nano';
        takenNano = raw;
      }
      const counts = req.countReply === true && status !== 'insufficient';
      const after: Balance = { usdMicro: bal.usdMicro - takenUsd, nanoRaw: bal.nanoRaw - takenNano };

      // 1. The entry, idempotent by key: no row back = applied before; report that and change nothing.
      const inserted = await tx.query<{ id: string }>(
        `INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, status, source,
           applied_usd_micro, applied_nano_raw, usd_after_micro, nano_after_raw, counts_reply, note)
         VALUES ($1, $2, 'charge', $3::bigint, $4, $5, $6::bigint, $7::numeric, $8::bigint, $9::numeric, $10, $11)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING id::text AS id`,
        [req.key, sessionId, amount.toString(), status, source, takenUsd.toString(), takenNano.toString(),
          after.usdMicro.toString(), after.nanoRaw.toString(), counts, req.note ?? null],
      );
      const entry = inserted[0];
      if (!entry) return this.previousCharge(tx, req.key, sessionId, bal);

      // 2. The balance change, conditional so that it can never go below zero.
      if (takenUsd > 0n || takenNano > 0n || counts) {
        const upd = await tx.query<BalanceRow>(
          `UPDATE sessions SET usd_micro = usd_micro - $2::bigint, nano_raw = nano_raw - $3::numeric,
             num_replies = num_replies + $4
           WHERE id = $1 AND usd_micro >= $2::bigint AND nano_raw >= $3::numeric
           RETURNING usd_micro::text AS usd_micro, nano_raw::text AS nano_raw`,
          [sessionId, takenUsd.toString(), takenNano.toString(), counts ? 1 : 0],
        );
        if (!upd[0]) throw new Error('Ledger invariant broken: the locked balance changed during a charge');
      }
      return {
        status,
        duplicate: false,
        source,
        chargedUsdMicro: takenUsd,
        chargedNanoRaw: takenNano,
        chargedUsdValueMicro: takenUsd + nanoRawToUsdMicro(takenNano, price),
        requestedUsdMicro: amount,
        balance: after,
        entryId: entry.id,
      };
    });
  }

  /**
   * A charge of 0 (free models): no balance change, so no lock and no transaction; one statement records the entry
   * and, only if the key is new, counts the reply.
   */
  private async chargeNothing(sessionId: string, req: ChargeRequest): Promise<ChargeResult> {
    const counts = req.countReply === true;
    const rows = await this.db.query<{ entry_id: string | null; usd_micro: string; nano_raw: string }>(
      `WITH ins AS (
         INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, status, source,
           usd_after_micro, nano_after_raw, counts_reply, note)
         SELECT $1, s.id, 'charge', 0, 'applied', 'none', s.usd_micro, s.nano_raw, $3, $4 FROM sessions s WHERE s.id = $2
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING id
       ), counted AS (
         UPDATE sessions SET num_replies = num_replies + 1 WHERE id = $2 AND $3 AND EXISTS (SELECT 1 FROM ins) RETURNING id
       )
       SELECT (SELECT id::text FROM ins) AS entry_id, s.usd_micro::text AS usd_micro, s.nano_raw::text AS nano_raw,
         (SELECT count(*) FROM counted) AS counted
       FROM sessions s WHERE s.id = $2`,
      [req.key, sessionId, counts, req.note ?? null],
    );
    const row = rows[0];
    if (!row) throw new UnknownSessionError(sessionId);
    const bal: Balance = { usdMicro: BigInt(row.usd_micro), nanoRaw: BigInt(row.nano_raw) };
    if (row.entry_id === null) return this.previousCharge(this.db, req.key, sessionId, bal);
    return {
      status: 'applied',
      duplicate: false,
      source: 'none',
      chargedUsdMicro: 0n,
      chargedNanoRaw: 0n,
      chargedUsdValueMicro: 0n,
      requestedUsdMicro: 0n,
      balance: bal,
      entryId: row.entry_id,
    };
  }

  /**
   * The charge recorded under `key`, or null: what a settle whose answer was lost (the database failed after it
   * committed, say) did, so that a reply never says "not charged" when it was.
   */
  async chargeOf(sessionId: string, key: string): Promise<ChargeResult | null> {
    const rows = await this.db.query<{ id: string }>('SELECT id::text AS id FROM ledger_entries WHERE idempotency_key = $1', [key]);
    if (rows.length === 0) return null;
    return this.previousCharge(this.db, key, sessionId, await this.balance(sessionId));
  }

  private async previousCharge(tx: Queryable, key: string, sessionId: string, balance: Balance): Promise<ChargeResult> {
    const rows = await tx.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries WHERE idempotency_key = $1`, [key]);
    const prev = rows[0];
    if (!prev) throw new Error(`Ledger entry '${key}' vanished`);
    if (prev.kind !== 'charge' || prev.session_id !== sessionId) {
      throw new LedgerInputError(`Idempotency key '${key}' was already used for another operation`);
    }
    const takenUsd = BigInt(prev.applied_usd_micro);
    const takenNano = BigInt(prev.applied_nano_raw);
    return {
      status: prev.status as ChargeStatus,
      duplicate: true,
      source: (prev.source ?? 'none') as ChargeSource,
      chargedUsdMicro: takenUsd,
      chargedNanoRaw: takenNano,
      chargedUsdValueMicro: takenUsd + nanoRawToUsdMicro(takenNano, this.options.nanoPriceUsdMicro),
      requestedUsdMicro: BigInt(prev.requested_usd_micro),
      balance,
      entryId: prev.id,
    };
  }

  /**
   * Reserves up to `maxUsdMicro` for a request before any work is done (a hold; ./holds.ts): USD if the USD
   * balance covers it, else nano. A shortfall changes nothing and says what was required. Reserving a key again
   * returns the first hold (duplicate: true). A shortfall first sweeps this session's expired holds, so money a
   * dead gateway left held comes back as soon as it is needed. Reserves that arrive together share one statement
   * when USD covers them all (holds.ts, reserveHoldsInUsd); any other is decided alone, after it.
   */
  async reserve(sessionId: string, req: ReserveRequest): Promise<ReserveResult> {
    checkKey(req.key);
    checkAmount(req.maxUsdMicro, 'Hold amount');
    const price = this.options.nanoPriceUsdMicro;
    const batched = await this.reserves.add({ sessionId, req });
    if (batched !== null) return batched;
    let r = await reserveHold(this.db, sessionId, req, price);
    if (r === null) throw new UnknownSessionError(sessionId);
    if (!r.ok && (await sweepExpiredHolds(this.db, { limit: 100, sessionId })) > 0) {
      r = await reserveHold(this.db, sessionId, req, price);
      if (r === null) throw new UnknownSessionError(sessionId);
    }
    return r;
  }

  /**
   * Settles a hold with the actual cost: takes min(actual, the hold's maximum), gives back the rest, records one
   * charge entry under the hold's key. Idempotent: a second settle returns the first result (duplicate: true).
   * A hold that is no longer open (expired after its TTL, or released) is charged like any cost known up front:
   * from the balance if it covers it, else not at all (status 'insufficient'). Settles that arrive together share
   * one statement (holds.ts, settleHolds); any the batch leaves is done alone, after it.
   */
  async settle(sessionId: string, key: string, actualUsdMicro: bigint, opts: { countReply?: boolean; note?: string } = {}): Promise<ChargeResult> {
    checkKey(key);
    checkAmount(actualUsdMicro, 'Settle amount');
    let done = await this.settles.add({ sessionId, key, actualUsdMicro, countReply: opts.countReply === true, note: opts.note ?? null });
    try {
      done ??= await settleHold(this.db, key, actualUsdMicro, { countReply: opts.countReply === true, note: opts.note ?? null });
    } catch (e) {
      if (e instanceof HoldKeyError) throw new LedgerInputError(e.message);
      throw e;
    }
    if (done === null) {
      const req: ChargeRequest = { key, usdMicro: actualUsdMicro };
      if (opts.countReply !== undefined) req.countReply = opts.countReply;
      if (opts.note !== undefined) req.note = opts.note;
      return this.charge(sessionId, req);
    }
    if (done.sessionId !== sessionId) throw new LedgerInputError(`Hold '${key}' belongs to another session`);
    return {
      status: 'applied',
      duplicate: false,
      source: done.source,
      chargedUsdMicro: done.takenUsdMicro,
      chargedNanoRaw: done.takenNanoRaw,
      chargedUsdValueMicro: done.takenUsdMicro + nanoRawToUsdMicro(done.takenNanoRaw, done.nanoPriceUsdMicro),
      requestedUsdMicro: done.requestedUsdMicro,
      balance: done.balance,
      entryId: done.entryId,
    };
  }

  /** Pushes back the expiry of these open holds (their calls still run in this process). */
  renewHolds(keys: readonly string[], ttlMs: number): Promise<void> {
    return renewHolds(this.db, keys, ttlMs);
  }

  /**
   * Gives an open hold back in full (nothing to charge). True if it was open; safe to call twice. `forget: true`
   * also deletes it, for a request that never reached its upstream (its key can then be reserved again).
   */
  release(key: string, opts: { forget?: boolean } = {}): Promise<boolean> {
    checkKey(key);
    return releaseHold(this.db, key, opts.forget === true);
  }

  /** Releases holds past their expiry (a gateway died with them open); returns how many. See ./holds.ts. */
  sweepExpiredHolds(limit = 500): Promise<number> {
    return sweepExpiredHolds(this.db, { limit });
  }

  /** A session's latest holds, newest first. */
  holds(sessionId: string, limit = 10): Promise<HoldRowView[]> {
    return listHolds(this.db, sessionId, limit);
  }

  /** Adds to a session's balance (deposits, admin credits). Idempotent by key. */
  async credit(sessionId: string, req: CreditRequest): Promise<CreditResult> {
    return this.db.transaction((tx) => this.creditWithin(tx, sessionId, req));
  }

  /**
   * `credit` inside the caller's transaction, so that a credit and the caller's own record of it (the nano faucet's
   * claim, nano/faucet.ts) commit or roll back together.
   */
  async creditWithin(tx: Queryable, sessionId: string, req: CreditRequest): Promise<CreditResult> {
    checkKey(req.key);
    const usd = req.usdMicro ?? 0n;
    const nano = req.nanoRaw ?? 0n;
    checkAmount(usd, 'Credit amount (USD)');
    checkAmount(nano, 'Credit amount (nano)');
    if (usd === 0n && nano === 0n) throw new LedgerInputError('Credit amount must be above 0');
    {
      const exists = await tx.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [sessionId]);
      if (exists.length === 0) throw new UnknownSessionError(sessionId);
      const inserted = await tx.query<{ id: string }>(
        `INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, requested_nano_raw, note)
         VALUES ($1, $2, 'credit', $3::bigint, $4::numeric, $5)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING id::text AS id`,
        [req.key, sessionId, usd.toString(), nano.toString(), req.note ?? null],
      );
      const entry = inserted[0];
      if (!entry) {
        const rows = await tx.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries WHERE idempotency_key = $1`, [req.key]);
        const prev = rows[0];
        if (!prev || prev.kind !== 'credit' || prev.session_id !== sessionId) {
          throw new LedgerInputError(`Idempotency key '${req.key}' was already used for another operation`);
        }
        return {
          duplicate: true,
          creditedUsdMicro: BigInt(prev.applied_usd_micro),
          creditedNanoRaw: BigInt(prev.applied_nano_raw),
          balance: await this.balance(sessionId, tx),
          entryId: prev.id,
        };
      }
      const upd = await tx.query<BalanceRow>(
        `UPDATE sessions SET usd_micro = usd_micro + $2::bigint, nano_raw = nano_raw + $3::numeric
         WHERE id = $1
         RETURNING usd_micro::text AS usd_micro, nano_raw::text AS nano_raw`,
        [sessionId, usd.toString(), nano.toString()],
      );
      const row = upd[0];
      if (!row) throw new UnknownSessionError(sessionId);
      const after = { usdMicro: BigInt(row.usd_micro), nanoRaw: BigInt(row.nano_raw) };
      await tx.query(
        `UPDATE ledger_entries SET status = 'applied', source = $2, applied_usd_micro = $3::bigint, applied_nano_raw = $4::numeric,
           usd_after_micro = $5::bigint, nano_after_raw = $6::numeric
         WHERE id = $1::bigint`,
        [entry.id, usd > 0n && nano > 0n ? 'mixed' : usd > 0n ? 'USD' : 'nano', usd.toString(), nano.toString(),
          after.usdMicro.toString(), after.nanoRaw.toString()],
      );
      return { duplicate: false, creditedUsdMicro: usd, creditedNanoRaw: nano, balance: after, entryId: entry.id };
    }
  }
}
