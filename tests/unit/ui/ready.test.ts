/** Spec 001 section 4: the app counts as ready only on the client and once the conversation store is hydrated. */
import { describe, expect, it } from 'vitest';
import { isAppReady } from '../../../src/ui/ready';

describe('the readiness gate', () => {
  it('is ready only in a browser, with the engine connected and its conversation list answered', () => {
    expect(isAppReady({ client: true, engineConnected: true, conversationsHydrated: true })).toBe(true);
    expect(isAppReady({ client: false, engineConnected: true, conversationsHydrated: true })).toBe(false);
    expect(isAppReady({ client: true, engineConnected: false, conversationsHydrated: true })).toBe(false);
    expect(isAppReady({ client: true, engineConnected: true, conversationsHydrated: false })).toBe(false);
  });
});
