/**
 * Ledger moves that must share a transaction with another table's change (an invitation reserved, redeemed or
 * refunded; nano converted to USD). Same rules as Ledger (./ledger.ts, DESIGN rule 9): one `ledger_entries` row
 * per move with a unique idempotency key, written in the transaction that changes the balance, and a conditional
 * UPDATE so that a balance never goes below zero. Kept beside ledger.ts rather than in it: these are called with
 * the caller's transaction (`tx`), so the invitation row and the money move commit or roll back together.
 *
 * Lock order: the caller's own row first (an invitation), then the session row, as in holds.ts.
 */
import type { Queryable } from '../db/types';
import { LedgerInputError, UnknownSessionError, type Balance } from './ledger';

export interface Amounts {
  usdMicro: bigint;
  nanoRaw: bigint;
}

export type MoveResult =
  | { ok: true; duplicate: boolean; balance: Balance }
  | { ok: false; reason: 'insufficient'; balance: Balance };

interface BalanceRow {
  [k: string]: unknown;
  usd_micro: string;
  nano_raw: string;
}

function check(key: string, a: Amounts): void {
  if (key.length === 0 || key.length > 200) throw new LedgerInputError('Idempotency key must be 1 to 200 characters');
  if (a.usdMicro < 0n || a.nanoRaw < 0n) throw new LedgerInputError('Amounts must be non-negative');
  if (a.usdMicro === 0n && a.nanoRaw === 0n) throw new LedgerInputError('Amount must be above 0');
}

const source = (a: Amounts): string => (a.usdMicro > 0n && a.nanoRaw > 0n ? 'mixed' : a.usdMicro > 0n ? 'USD' : 'nano');

async function lockBalance(tx: Queryable, sessionId: string): Promise<Balance> {
  const rows = await tx.query<BalanceRow>(
    'SELECT usd_micro::text AS usd_micro, nano_raw::text AS nano_raw FROM sessions WHERE id = $1 FOR UPDATE',
    [sessionId],
  );
  const r = rows[0];
  if (!r) throw new UnknownSessionError(sessionId);
  return { usdMicro: BigInt(r.usd_micro), nanoRaw: BigInt(r.nano_raw) };
}

async function sameKindBefore(tx: Queryable, key: string, kind: 'charge' | 'credit', sessionId: string): Promise<void> {
  const rows = await tx.query<{ kind: string; session_id: string }>('SELECT kind, session_id FROM ledger_entries WHERE idempotency_key = $1', [key]);
  const prev = rows[0];
  if (!prev || prev.kind !== kind || prev.session_id !== sessionId) {
    throw new LedgerInputError(`Idempotency key '${key}' was already used for another operation`);
  }
}

/** The entry of a move, applied in full; false when its key was used before (nothing written). */
async function insertEntry(tx: Queryable, kind: 'charge' | 'credit', sessionId: string, key: string, amounts: Amounts, after: Balance, note: string): Promise<boolean> {
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, requested_nano_raw, status, source,
       applied_usd_micro, applied_nano_raw, usd_after_micro, nano_after_raw, note)
     VALUES ($1, $2, $3, $4::bigint, $5::numeric, 'applied', $6, $4::bigint, $5::numeric, $7::bigint, $8::numeric, $9)
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING id::text AS id`,
    [key, sessionId, kind, amounts.usdMicro.toString(), amounts.nanoRaw.toString(), source(amounts), after.usdMicro.toString(), after.nanoRaw.toString(), note],
  );
  return inserted.length > 0;
}

/** Takes `amounts` from a session inside `tx`; nothing changes when the balance does not cover them. */
export async function debitInTx(tx: Queryable, sessionId: string, key: string, amounts: Amounts, note: string): Promise<MoveResult> {
  check(key, amounts);
  const bal = await lockBalance(tx, sessionId);
  if (bal.usdMicro < amounts.usdMicro || bal.nanoRaw < amounts.nanoRaw) return { ok: false, reason: 'insufficient', balance: bal };
  const after: Balance = { usdMicro: bal.usdMicro - amounts.usdMicro, nanoRaw: bal.nanoRaw - amounts.nanoRaw };
  if (!(await insertEntry(tx, 'charge', sessionId, key, amounts, after, note))) {
    await sameKindBefore(tx, key, 'charge', sessionId);
    return { ok: true, duplicate: true, balance: bal };
  }
  const upd = await tx.query(
    `UPDATE sessions SET usd_micro = usd_micro - $2::bigint, nano_raw = nano_raw - $3::numeric
     WHERE id = $1 AND usd_micro >= $2::bigint AND nano_raw >= $3::numeric RETURNING id`,
    [sessionId, amounts.usdMicro.toString(), amounts.nanoRaw.toString()],
  );
  if (upd.length === 0) throw new Error('Ledger invariant broken: the locked balance changed during a debit');
  return { ok: true, duplicate: false, balance: after };
}

/** Adds `amounts` to a session inside `tx`, once per key. */
export async function creditInTx(tx: Queryable, sessionId: string, key: string, amounts: Amounts, note: string): Promise<MoveResult> {
  check(key, amounts);
  const bal = await lockBalance(tx, sessionId);
  const after: Balance = { usdMicro: bal.usdMicro + amounts.usdMicro, nanoRaw: bal.nanoRaw + amounts.nanoRaw };
  if (!(await insertEntry(tx, 'credit', sessionId, key, amounts, after, note))) {
    await sameKindBefore(tx, key, 'credit', sessionId);
    return { ok: true, duplicate: true, balance: bal };
  }
  await tx.query('UPDATE sessions SET usd_micro = usd_micro + $2::bigint, nano_raw = nano_raw + $3::numeric WHERE id = $1', [
    sessionId,
    amounts.usdMicro.toString(),
    amounts.nanoRaw.toString(),
  ]);
  return { ok: true, duplicate: false, balance: after };
}
