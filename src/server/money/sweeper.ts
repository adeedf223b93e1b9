/**
 * Gives back the money of holds a dead gateway left open: one sweep at startup, then one every interval
 * (docs/gateway.md, "Holds"). Several gateways on one Postgres may all sweep; rows are claimed with SKIP LOCKED.
 * A reserve that finds the balance short also sweeps its own session first, so the timer only bounds how long
 * the money shows as held.
 */
import type { Ledger } from './ledger';
import { HOLD_SWEEP_INTERVAL_MS } from './reply-hold';

export interface HoldSweeper {
  /** Resolves when the startup sweep is done. */
  readonly first: Promise<void>;
  /** Stops the timer; resolves when a sweep under way is done (then the database may close). */
  stop(): Promise<void>;
}

export function startHoldSweeper(ledger: Ledger, log: (line: string) => void, intervalMs = HOLD_SWEEP_INTERVAL_MS): HoldSweeper {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const sweep = (): Promise<void> => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        // Drain in batches so one sweep never holds many row locks at once.
        for (let n = 500; n === 500 && !stopped; ) {
          n = await ledger.sweepExpiredHolds(500);
          if (n > 0) log(`holds: released ${n} expired hold(s)`);
        }
      } catch (e) {
        log(`holds: sweep failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    return running;
  };
  const first = sweep();
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref?.();
  return {
    first,
    stop() {
      stopped = true;
      clearInterval(timer);
      return running;
    },
  };
}
