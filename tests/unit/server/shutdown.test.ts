/**
 * Closing a gateway leaves nothing running: every interval its parts started (rate-limit sweeps, including the
 * recovery and invitation guess limiter's, the hold and money sweeps, session expiry, the reply registry) is
 * cleared by close(), so a process that starts and stops gateways (tests, a supervisor) does not collect them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGateway } from '../../../src/server/start';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('gateway shutdown', () => {
  it('close() clears every interval started while the gateway ran, the guess limiter included', async () => {
    const started = new Map<ReturnType<typeof setInterval>, string>();
    const cleared = new Set<unknown>();
    const realSet = globalThis.setInterval;
    const realClear = globalThis.clearInterval;
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms?: number) => {
      const t = realSet(fn, ms);
      const caller = new Error().stack?.split('\n').find((l) => l.includes('/src/server/'))?.trim() ?? '?';
      started.set(t, `${ms} ms, ${caller}`);
      return t;
    }) as typeof setInterval);
    vi.spyOn(globalThis, 'clearInterval').mockImplementation(((t?: Parameters<typeof clearInterval>[0]) => {
      cleared.add(t);
      realClear(t);
    }) as typeof clearInterval);

    const gw = await startGateway({ port: 0, memory: true, clientDir: null, inheritEnv: false, env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' }, log: () => {} });
    const session = await fetch(`${gw.url}/auth/local-session`);
    const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const post = (path: string, body: unknown) =>
      fetch(`${gw.url}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // A wrong recovery code and an unknown invitation: both take from the guess limiter (over a real socket, so the
    // client has an address and the limiter's buckets and sweep start).
    expect((await post('/auth/recover', { code: 'ABCDE-FGHJK-MNPQR-STVWX-YZ012' })).status).toBe(401);
    expect((await post('/invitations/redeem', { redeemCode: 'NOPE' })).status).toBeLessThan(500);
    // A costly request (the costly limiter) and a reply (the reply registry).
    const reply = await post('/api/stream-gpt', { model: 'parley-offline', messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c' });
    expect(await reply.text()).toContain('<metadata>');
    const fromLimiter = [...started.values()].filter((where) => where.includes('rate-limit'));
    expect(fromLimiter.length, 'the rate limiters started their sweeps').toBeGreaterThanOrEqual(2);

    await gw.close();
    const left = [...started].filter(([t]) => !cleared.has(t)).map(([, where]) => where);
    expect(left, 'intervals still running after close()').toEqual([]);
  });
});
