/**
 * The two retry rules of spec 001 section 9, pure (the caller gives the sleep, so tests need no clock):
 *  - the consent status check: 3 retries at a fixed 500 ms (so at most 4 calls);
 *  - the analytics retry helper: at most 5 attempts, exponential backoff from a 1000 ms base (1, 2, 4, 8 s).
 * `attempt` answers { done: true, value } to stop, or { done: false } to try again.
 */
export const CONSENT_CHECK_RETRIES = 3;
export const CONSENT_CHECK_DELAY_MS = 500;
export const RETRY_MAX_ATTEMPTS = 5;
export const RETRY_BASE_MS = 1000;

export type Attempt<T> = { done: true; value: T } | { done: false };
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Delay before attempt n+1 (n counted from 1) of the backoff helper: base * 2^(n-1). */
export function backoffDelay(attempt: number, baseMs = RETRY_BASE_MS): number {
  return baseMs * 2 ** (attempt - 1);
}

async function retry<T>(attempt: () => Promise<Attempt<T>>, attempts: number, delay: (n: number) => number, sleep: Sleep): Promise<T | null> {
  for (let n = 1; n <= attempts; n++) {
    const result = await attempt();
    if (result.done) return result.value;
    if (n < attempts) await sleep(delay(n));
  }
  return null;
}

/** The consent status check: the first call and up to 3 retries, 500 ms apart. null when every call failed. */
export function retryConsentCheck<T>(attempt: () => Promise<Attempt<T>>, sleep: Sleep = realSleep): Promise<T | null> {
  return retry(attempt, 1 + CONSENT_CHECK_RETRIES, () => CONSENT_CHECK_DELAY_MS, sleep);
}

/** The retry helper: at most 5 attempts, waiting 1000 ms, then 2000, 4000 and 8000. null when all 5 failed. */
export function retryWithBackoff<T>(attempt: () => Promise<Attempt<T>>, sleep: Sleep = realSleep): Promise<T | null> {
  return retry(attempt, RETRY_MAX_ATTEMPTS, (n) => backoffDelay(n), sleep);
}
