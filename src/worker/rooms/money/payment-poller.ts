/**
 * The payment polling pipeline (spec 001 sections 4 and 9; DESIGN rule 6): GET /transaction/status every 3 s, at
 * most 200 times; a transaction still pending 30 minutes after it started expires and is reset. For SOL and USDC a
 * 404 means pending; for the others it means the gateway does not know the transaction (failed).
 *
 * Attempts are counted from the start time, not from this run, so an engine that takes over (its tab closed) goes
 * on where the last one was rather than polling another 200 times. Cancellable through the signal.
 */
import { PAYMENT_EXPIRY_MS, PAYMENT_POLL_ATTEMPTS, PAYMENT_POLL_MS, type PaymentStatus } from '../../../protocol/payments';
import type { PaymentRecord } from '../../../projections/payments';

export type PollAnswer = { kind: 'status'; status: PaymentStatus; redeemable?: boolean } | { kind: 'notFound' } | { kind: 'error' };

export interface PollHost {
  status(ticker: string, id: string): Promise<PollAnswer>;
  /** Records the outcome (appends payment.settled and does what it implies). Called at most once per run. */
  settle(record: PaymentRecord, status: 'completed' | 'failed' | 'expired'): Promise<void>;
  /** A Daimo-style deposit paid at the provider: the redeem call (POST /transaction/callback/daimo); true when it went through. */
  redeem(record: PaymentRecord): Promise<boolean>;
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Spec 001 section 4: for SOL and USDC a 404 from the status call means pending. */
const NOT_FOUND_IS_PENDING = new Set(['SOL', 'USDC']);

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

function terminal(a: PollAnswer, ticker: string): 'completed' | 'failed' | 'expired' | null {
  if (a.kind === 'status') return a.status === 'pending' ? null : a.status;
  if (a.kind === 'notFound') return NOT_FOUND_IS_PENDING.has(ticker) ? null : 'failed';
  return null;
}

/** Polls one transaction until it settles, expires or the signal aborts. Returns the outcome it recorded, if any. */
export async function pollPayment(host: PollHost, record: PaymentRecord, signal: AbortSignal): Promise<'completed' | 'failed' | 'expired' | null> {
  const expiresAt = record.startedAt + PAYMENT_EXPIRY_MS;
  let attempts = Math.min(PAYMENT_POLL_ATTEMPTS, Math.max(0, Math.floor((host.now() - record.startedAt) / PAYMENT_POLL_MS)));
  while (!signal.aborted) {
    if (host.now() >= expiresAt) {
      // One last look (a late payment still counts), then the transaction is reset.
      const outcome = terminal(await host.status(record.ticker, record.id), record.ticker) ?? 'expired';
      if (signal.aborted) return null;
      await host.settle(record, outcome);
      return outcome;
    }
    if (attempts < PAYMENT_POLL_ATTEMPTS) {
      attempts++;
      const answer = await host.status(record.ticker, record.id);
      if (signal.aborted) return null;
      if (answer.kind === 'status' && answer.redeemable && record.paymentNonce !== null) {
        const outcome = (await host.redeem(record)) ? 'completed' : 'failed';
        await host.settle(record, outcome);
        return outcome;
      }
      const outcome = terminal(answer, record.ticker);
      if (outcome) {
        await host.settle(record, outcome);
        return outcome;
      }
      await host.sleep(Math.min(PAYMENT_POLL_MS, expiresAt - host.now()), signal);
    } else {
      // Out of attempts: wait for the expiry.
      await host.sleep(expiresAt - host.now(), signal);
    }
  }
  return null;
}
