/** The consent check's retries (3 at 500 ms) and the analytics retry helper (5 attempts, backoff from 1000 ms). */
import { describe, expect, it } from 'vitest';
import { backoffDelay, retryConsentCheck, retryWithBackoff, type Attempt } from '../../../src/analytics/retry';

function failing<T>(failures: number, value: T) {
  let calls = 0;
  const sleeps: number[] = [];
  return {
    attempt: async (): Promise<Attempt<T>> => (++calls > failures ? { done: true, value } : { done: false }),
    sleep: async (ms: number) => void sleeps.push(ms),
    get calls() {
      return calls;
    },
    sleeps,
  };
}

describe('retries', () => {
  it('the consent check tries once and retries 3 times, 500 ms apart, then gives up', async () => {
    const never = failing(99, 'x');
    expect(await retryConsentCheck(never.attempt, never.sleep)).toBeNull();
    expect(never.calls).toBe(4);
    expect(never.sleeps).toEqual([500, 500, 500]);
    const third = failing(2, 'ok');
    expect(await retryConsentCheck(third.attempt, third.sleep)).toBe('ok');
    expect(third.calls).toBe(3);
  });

  it('the retry helper makes at most 5 attempts, waiting 1000, 2000, 4000 and 8000 ms', async () => {
    const never = failing(99, 'x');
    expect(await retryWithBackoff(never.attempt, never.sleep)).toBeNull();
    expect(never.calls).toBe(5);
    expect(never.sleeps).toEqual([1000, 2000, 4000, 8000]);
    const first = failing(0, 7);
    expect(await retryWithBackoff(first.attempt, first.sleep)).toBe(7);
    expect(first.sleeps).toEqual([]);
    expect(backoffDelay(1)).toBe(1000);
    expect(backoffDelay(3)).toBe(4000);
  });
});
