/**
 * Auto-recharge (spec 001 sections 3 and 7): settings {enabled, threshold, target}. When the USD balance is below
 * the threshold, the configured provider is asked once for a top-up to the target; the session's recharge_state
 * row is disarmed by that one conditional update (so two sweeps or two gateways ask once), and armed again only
 * when the balance is back at or above the threshold. So: once per crossing, never twice, whatever failed.
 *
 * The check runs in the money sweep (every PARLEY_MONEY_SWEEP_MS) over the sessions with auto-recharge on (a
 * partial index), so it needs no hook in the charge path.
 */
import type { Db } from '../db/types';
import { formatUsdMicro, parseDecimal } from '../money/amounts';
import type { RechargeSettingsRequest } from '../../protocol/payments';
import type { Payments } from './service';
import { savedMethod } from './store';

/** Largest target: the card maximum. */
const MAX_TARGET_MICRO = 2_000_000_000n;

export type RechargeSettingsOutcome =
  | { ok: true; settings: { enabled: boolean; threshold: string; amount: string } }
  | { ok: false; status: 400; error: string; message: string };

export async function setRechargeSettings(payments: Payments, sessionId: string, req: RechargeSettingsRequest): Promise<RechargeSettingsOutcome> {
  const threshold = parseDecimal(req.threshold, 6);
  const target = parseDecimal(req.target, 6);
  if (req.enabled) {
    if (threshold <= 0n || target <= threshold || target > MAX_TARGET_MICRO) {
      return { ok: false, status: 400, error: 'INVALID_RECHARGE', message: 'The target must be above the threshold, the threshold above 0 and the target at most 2000' };
    }
    if (!(await payments.canRecharge(sessionId, (p) => savedMethod(payments.db, sessionId, p)))) {
      return { ok: false, status: 400, error: 'RECHARGE_UNAVAILABLE', message: 'No payment method can top up this balance automatically; make a card deposit first' };
    }
  }
  await payments.db.transaction(async (tx) => {
    await tx.query(
      `UPDATE sessions SET recharge_enabled = $2, recharge_threshold_micro = $3::bigint, recharge_amount_micro = $4::bigint WHERE id = $1`,
      [sessionId, req.enabled, threshold.toString(), target.toString()],
    );
    // New settings arm the check: settings made while already below the threshold count as a crossing (one top-up).
    await tx.query(
      `INSERT INTO recharge_state (session_id, armed) VALUES ($1, true)
       ON CONFLICT (session_id) DO UPDATE SET armed = true, updated_at = now()`,
      [sessionId],
    );
  });
  return { ok: true, settings: { enabled: req.enabled, threshold: formatUsdMicro(threshold), amount: formatUsdMicro(target) } };
}

interface Candidate {
  [k: string]: unknown;
  id: string;
  usd_micro: string;
  threshold: string;
  target: string;
}

/**
 * One pass over the sessions with auto-recharge on that are below their threshold; returns how many top-ups were
 * asked for. A session is asked when its state is armed (it was seen at or above the threshold since the last
 * top-up) or when its last top-up completed (that top-up lifted it to the target, above the threshold, so being
 * below again is a new crossing). The claim is one conditional upsert, so concurrent sweeps ask once.
 */
export async function checkRecharges(payments: Payments, db: Db, log: (line: string) => void): Promise<number> {
  // Re-arm the sessions seen at or above their threshold.
  await db.query(
    `UPDATE recharge_state r SET armed = true, updated_at = now() FROM sessions s
     WHERE s.id = r.session_id AND s.recharge_enabled AND NOT r.armed AND s.usd_micro >= s.recharge_threshold_micro`,
  );
  const rows = await db.query<Candidate>(
    `SELECT s.id, s.usd_micro::text AS usd_micro, s.recharge_threshold_micro::text AS threshold, s.recharge_amount_micro::text AS target
     FROM sessions s WHERE s.recharge_enabled AND s.usd_micro < s.recharge_threshold_micro LIMIT 1000`,
  );
  let asked = 0;
  for (const r of rows) {
    const usd = BigInt(r.usd_micro);
    const target = BigInt(r.target);
    const claimed = await db.query(
      `INSERT INTO recharge_state (session_id, armed) VALUES ($1, false)
       ON CONFLICT (session_id) DO UPDATE SET armed = false, last_tx_id = NULL, updated_at = now()
       WHERE recharge_state.armed
          OR EXISTS (SELECT 1 FROM payment_transactions p WHERE p.id = recharge_state.last_tx_id AND p.status = 'completed')
       RETURNING session_id`,
      [r.id],
    );
    if (claimed.length === 0 || target <= usd) continue;
    asked++;
    try {
      const done = await payments.recharge(r.id, target - usd, (p) => savedMethod(db, r.id, p));
      if (done) await db.query('UPDATE recharge_state SET last_tx_id = $2 WHERE session_id = $1', [r.id, done.txId]);
      log(`auto-recharge of ${r.id} for $${formatUsdMicro(target - usd)}: ${done?.status ?? 'no provider'}`);
    } catch (e) {
      log(`auto-recharge of ${r.id} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return asked;
}
