/**
 * Money invariants the gateway tests check after each scenario: a session's balance is its credits minus its
 * charges minus what its open holds keep aside, in USD and in nano, and never negative.
 */
import { expect } from 'vitest';
import type { Queryable } from '../../../src/server/db/types';

export async function expectLedgerBalanced(db: Queryable, sessionId: string): Promise<void> {
  const rows = await db.query<{ usd: string; nano: string; bal_usd: string; bal_nano: string }>(
    `SELECT
       ((SELECT coalesce(sum(CASE WHEN kind = 'credit' THEN applied_usd_micro ELSE -applied_usd_micro END), 0)
          FROM ledger_entries WHERE session_id = $1)
       - (SELECT coalesce(sum(held_usd_micro), 0) FROM ledger_holds WHERE session_id = $1 AND status = 'held'))::text AS usd,
       ((SELECT coalesce(sum(CASE WHEN kind = 'credit' THEN applied_nano_raw ELSE -applied_nano_raw END), 0)
          FROM ledger_entries WHERE session_id = $1)
       - (SELECT coalesce(sum(held_nano_raw), 0) FROM ledger_holds WHERE session_id = $1 AND status = 'held'))::text AS nano,
       s.usd_micro::text AS bal_usd, s.nano_raw::text AS bal_nano
     FROM sessions s WHERE s.id = $1`,
    [sessionId],
  );
  const r = rows[0];
  expect(r, `session ${sessionId}`).toBeDefined();
  if (!r) return;
  expect(BigInt(String(r.bal_usd))).toBe(BigInt(String(r.usd)));
  expect(BigInt(String(r.bal_nano))).toBe(BigInt(String(r.nano)));
  expect(BigInt(String(r.bal_usd)) >= 0n).toBe(true);
}
