/** The gateway's consent calls (spec 001 section 7), stored per session (migration 8), with bad input refused. */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentState } from '../../../src/protocol/account';
import { createApp } from '../../../src/server/app';
import { loadConsentConfig, type ConsentConfig } from '../../../src/server/consent/config';
import type { AppEnv } from '../../../src/server/http';
import { newSession, testGateway, type TestGateway } from '../server/helpers';

let gw: TestGateway;
beforeAll(async () => {
  gw = await testGateway();
});
afterAll(async () => {
  await gw.close();
});

function app(consent: ConsentConfig): Hono<AppEnv> {
  return createApp({ db: gw.db, catalogue: gw.catalogue, ledger: gw.ledger, log: () => undefined, consent });
}

const post = (a: Hono<AppEnv>, cookie: string, path: string, body: unknown) =>
  a.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const status = async (a: Hono<AppEnv>, cookie: string) => (await (await a.request('/api/consent/status', { headers: { cookie } })).json()) as ConsentState;

describe('consent calls', () => {
  it('not required by default; a tracked source makes it pending; grant and deny decide; a decision is not undone by a source', async () => {
    const a = app(loadConsentConfig({}));
    const { cookie } = await newSession(a);
    expect(await status(a, cookie)).toEqual({ consentStatus: 'not_required', analyticsConsent: false, consentLastUpdated: null, policyVersion: '2026-11-24' });

    const required = await post(a, cookie, '/api/consent/require-for-ads', { source: 'newsletter' });
    expect(required.status).toBe(200);
    expect(((await required.json()) as ConsentState).consentStatus).toBe('pending');

    const granted = (await (await post(a, cookie, '/api/consent/grant', { categories: ['analytics'] })).json()) as ConsentState;
    expect(granted).toMatchObject({ consentStatus: 'granted', analyticsConsent: true });
    expect(granted.consentLastUpdated).toBeGreaterThan(Date.now() - 60_000);

    // Another tracked visit does not ask again.
    await post(a, cookie, '/api/consent/require-for-ads', { source: 'ads' });
    expect((await status(a, cookie)).consentStatus).toBe('granted');

    const denied = (await (await post(a, cookie, '/api/consent/deny', { categories: ['analytics'] })).json()) as ConsentState;
    expect(denied).toMatchObject({ consentStatus: 'denied', analyticsConsent: false });
    // Per session: another session is untouched.
    const other = await newSession(a);
    expect((await status(a, other.cookie)).consentStatus).toBe('not_required');
  });

  it('mode always starts every session pending; mode never keeps it not required', async () => {
    const always = app(loadConsentConfig({ PARLEY_CONSENT_REQUIRED: 'always', PARLEY_CONSENT_POLICY_VERSION: 'v2' }));
    const s = await newSession(always);
    expect(await status(always, s.cookie)).toMatchObject({ consentStatus: 'pending', policyVersion: 'v2' });
    const never = app(loadConsentConfig({ PARLEY_CONSENT_REQUIRED: 'never' }));
    const t = await newSession(never);
    await post(never, t.cookie, '/api/consent/require-for-ads', { source: 'ads' });
    expect((await status(never, t.cookie)).consentStatus).toBe('not_required');
    expect(() => loadConsentConfig({ PARLEY_CONSENT_REQUIRED: 'sometimes' })).toThrow('ads, always or never');
  });

  it('refuse bad input with a 4xx and no session with a 401', async () => {
    const a = app(loadConsentConfig({}));
    const { cookie } = await newSession(a);
    for (const [path, body] of [
      ['/api/consent/require-for-ads', {}],
      ['/api/consent/require-for-ads', { source: '' }],
      ['/api/consent/require-for-ads', { source: 'x'.repeat(101) }],
      ['/api/consent/require-for-ads', { source: 'bad\u0000source' }],
      ['/api/consent/grant', { categories: [] }],
      ['/api/consent/grant', { categories: ['marketing'] }],
      ['/api/consent/deny', { categories: 'analytics' }],
      ['/api/consent/deny', '{not json'],
    ] as const) {
      const res = await post(a, cookie, path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'BAD_REQUEST', message: expect.any(String) });
    }
    const big = await post(a, cookie, '/api/consent/grant', JSON.stringify({ categories: ['analytics'], pad: 'x'.repeat(10_000) }));
    expect(big.status).toBe(413);
    expect((await status(a, cookie)).consentStatus).toBe('not_required');
    const anonymous = await a.request('/api/consent/status');
    expect(anonymous.status).toBe(401);
  });
});
