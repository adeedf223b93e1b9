/**
 * Session expiry. Anyone can make a session, so sessions that never held money are deleted after an idle time
 * (PARLEY_SESSION_IDLE_MS, by last_seen_at): zero balances, nothing earned, no credit ever in the ledger, no open
 * hold. A session that ever held money is kept whatever its age (the ledger is its history). The sweep claims its
 * rows with FOR UPDATE SKIP LOCKED, so gateways sharing one Postgres sweep side by side without waiting on each
 * other, and a credit that locks the row first wins (the row is then skipped, and next time it holds money).
 *
 * last_seen_at is written cheaply: by GET /auth/local-session and, for /api calls, at most once per
 * PARLEY_SESSION_TOUCH_MS per session (sessions/routes.ts), never once per request.
 */
import type { Db, Queryable } from '../db/types';

/** Rows deleted per transaction: keeps each sweep step short. */
export const SWEEP_BATCH = 500;

/**
 * Deletes up to `batch` expired moneyless sessions with what hangs off them (zero charges of free replies,
 * request bindings, closed zero holds); returns how many sessions went.
 */
export async function expireIdleSessions(db: Db, idleMs: number, batch: number = SWEEP_BATCH): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: string }>(
      `SELECT s.id FROM sessions s
       WHERE s.last_seen_at < now() - ($1::float8 * interval '1 millisecond')
         AND s.usd_micro = 0 AND s.nano_raw = 0 AND s.usd_earned_micro = 0 AND s.earned_raw = 0
         AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.session_id = s.id AND e.kind = 'credit')
         AND NOT EXISTS (SELECT 1 FROM ledger_holds h WHERE h.session_id = s.id AND (h.status = 'held' OR h.held_usd_micro > 0 OR h.held_nano_raw > 0))
       ORDER BY s.last_seen_at
       LIMIT $2
       FOR UPDATE OF s SKIP LOCKED`,
      [idleMs, batch],
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    const list = `{${ids.join(',')}}`; // ids are ses_ + base64url: no quoting needed in an array literal
    await deleteDependents(tx, list);
    const gone = await tx.query<{ id: string }>('DELETE FROM sessions WHERE id = ANY($1::text[]) RETURNING id', [list]);
    return gone.length;
  });
}

async function deleteDependents(tx: Queryable, list: string): Promise<void> {
  await tx.query('DELETE FROM request_bindings WHERE session_id = ANY($1::text[])', [list]);
  await tx.query('DELETE FROM ledger_holds WHERE session_id = ANY($1::text[])', [list]);
  await tx.query('DELETE FROM ledger_entries WHERE session_id = ANY($1::text[])', [list]);
}

export interface SessionSweeper {
  /** Runs one sweep now (all batches); resolves with the number of sessions deleted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Sweeps at startup and then every `everyMs`: expired sessions, rate-limit buckets idle long enough to be full
 * again (`bucketIdleMs`), and free-quota counts of past days. Errors are logged, never thrown (the next sweep retries).
 */
export function startSessionSweeper(
  db: Db,
  opts: { idleMs: number; everyMs: number; bucketIdleMs: number },
  log: (line: string) => void,
): SessionSweeper {
  let running: Promise<number> | null = null;
  let stopped = false;
  const sweep = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const n = await expireIdleSessions(db, opts.idleMs);
      total += n;
      if (n < SWEEP_BATCH || stopped) break;
    }
    await db.query(`DELETE FROM rate_limits WHERE updated_at < now() - ($1::float8 * interval '1 millisecond')`, [opts.bucketIdleMs]);
    // Free-quota counts of days gone by (media/billing.ts); a day's row is read only on that day.
    await db.query(`DELETE FROM free_quota_uses WHERE day < current_date - 2`);
    if (total > 0) log(`expired ${total} idle session(s) that never held money`);
    return total;
  };
  const runOnce = (): Promise<number> => {
    if (running) return running;
    running = sweep()
      .catch((e: unknown) => {
        log(`session sweep failed: ${e instanceof Error ? e.message : String(e)}`);
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  void runOnce();
  const timer = setInterval(() => void runOnce(), opts.everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
