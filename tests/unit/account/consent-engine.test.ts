/**
 * The engine's consent room against the in-process gateway: the status check once a session exists (3 retries at
 * 500 ms when the gateway fails), the banner only when pending with a session, deny taking effect at once.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { ConsentView } from '../../../src/protocol/account';
import { until, useEngineStack } from '../engine/harness';
import { textReply } from '../server/fake-upstream';

const stack = useEngineStack(textReply('ok'), ['fake-model']);
const consent = (engine: ReturnType<typeof stack.engine>, test: (v: ConsentView) => boolean) => until<ConsentView>(engine.observe({ kind: 'consent' }), test);

describe('consent in the engine', () => {
  it('checks the status once a session exists; a tracked source shows the banner; deny hides it at once and is stored', async () => {
    const engine = stack.engine('consent-flow');
    const first = await consent(engine, (v) => v.consent !== null);
    expect(first).toEqual({ consent: expect.objectContaining({ consentStatus: 'not_required', analyticsConsent: false }), showBanner: false });

    expect(await engine.requireConsentForAds('ads')).toEqual({ ok: true });
    expect((await consent(engine, (v) => v.showBanner)).consent?.consentStatus).toBe('pending');
    // No session, no banner: the session cleared (as before a recovered one arrives), the banner goes with it;
    // the session back, its status is asked again, still pending, and the banner returns.
    engine.clearSession();
    expect(await consent(engine, () => true)).toEqual({ consent: null, showBanner: false });
    await engine.refreshSession();
    expect((await consent(engine, (v) => v.showBanner)).consent?.consentStatus).toBe('pending');

    const denying = engine.denyConsent();
    // Before the gateway answers (the call is still in flight), tracking is off and the banner gone.
    const immediate = await consent(engine, () => true);
    expect(immediate).toMatchObject({ consent: { consentStatus: 'denied', analyticsConsent: false }, showBanner: false });
    expect(await denying).toEqual({ ok: true });
    // A decision is not asked again.
    expect(await engine.requireConsentForAds('ads')).toEqual({ ok: true });
    expect((await consent(engine, () => true)).consent?.consentStatus).toBe('denied');
    expect(await engine.grantConsent()).toEqual({ ok: true });
    expect((await consent(engine, (v) => v.consent?.consentStatus === 'granted')).consent?.analyticsConsent).toBe(true);
  });

  it('the status check tries 4 times (3 retries at 500 ms) and then tracks nothing', async () => {
    const realFetch = globalThis.fetch;
    let calls = 0;
    const started = Date.now();
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).includes('/api/consent/status')) {
        calls++;
        return new Response(JSON.stringify({ error: 'INTERNAL', message: 'down' }), { status: 503 });
      }
      return realFetch(input, init);
    };
    try {
      const engine = stack.engine('consent-retry');
      await engine.whenStarted();
      await new Promise((r) => setTimeout(r, 2500));
      expect(calls).toBe(4);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      expect((await consent(engine, () => true)).consent).toBeNull();
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
