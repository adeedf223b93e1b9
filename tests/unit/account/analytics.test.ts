/** Analytics (spec 001 sections 3, 7, 9): values, windows, session extension, source order, and consent gating. */
import { describe, expect, it } from 'vitest';
import { conversionWindow, engagementConversion, findSource, isSessionExtended } from '../../../src/analytics/events';
import { AnalyticsTracker, VISITS_KEY, type TrackerHost } from '../../../src/analytics/tracker';

const DAY = 86_400_000;

function memoryStorage() {
  const m = new Map<string, string>();
  return {
    map: m,
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

function fakeHost(now: number) {
  const timers: { fn: () => void; at: number }[] = [];
  const host = {
    win: {} as { dataLayer?: unknown[] },
    local: memoryStorage(),
    session: memoryStorage(),
    clock: now,
    now: () => host.clock,
    setTimeout: (fn: () => void, ms: number) => {
      const t = { fn, at: host.clock + ms };
      timers.push(t);
      return t;
    },
    clearTimeout: (h: unknown) => {
      const i = timers.indexOf(h as (typeof timers)[number]);
      if (i >= 0) timers.splice(i, 1);
    },
    /** Moves the clock and runs the timers that fall due. */
    advance(ms: number) {
      host.clock += ms;
      for (const t of [...timers].filter((x) => x.at <= host.clock)) {
        timers.splice(timers.indexOf(t), 1);
        t.fn();
      }
    },
  };
  return host satisfies TrackerHost & Record<string, unknown>;
}

describe('engagement values and rules', () => {
  it('fixed values: return visit 25, model upgrade 15, feature discovery 15, extended session 10', () => {
    expect(engagementConversion('return_visit', 'ads').user_value).toBe(25);
    expect(engagementConversion('model_upgrade', 'ads').user_value).toBe(15);
    expect(engagementConversion('feature_discovery', 'ads').user_value).toBe(15);
    expect(engagementConversion('extended_session', 'x', { a: 1 })).toEqual({ type: 'extended_session', user_value: 10, source: 'x', metadata: { a: 1 } });
  });

  it('a session is extended above 300000 ms; conversion windows 7 days, 30 days, otherwise extended', () => {
    expect(isSessionExtended(0, 300_000)).toBe(false);
    expect(isSessionExtended(0, 300_001)).toBe(true);
    expect(conversionWindow(0, 7 * DAY)).toBe('within_7_days');
    expect(conversionWindow(0, 7 * DAY + 1)).toBe('within_30_days');
    expect(conversionWindow(0, 30 * DAY)).toBe('within_30_days');
    expect(conversionWindow(0, 30 * DAY + 1)).toBe('extended');
  });

  it('the source: query parameter, then session storage, then the cookies track, source, referral_source, utm_source', () => {
    const cookies = 'utm_source=mail; referral_source=friend; other=1';
    expect(findSource({ search: '?source=ads', sessionValue: 'kept', cookies })).toBe('ads');
    expect(findSource({ search: '?x=1', sessionValue: 'kept', cookies })).toBe('kept');
    expect(findSource({ search: '', sessionValue: null, cookies })).toBe('friend');
    expect(findSource({ search: '', sessionValue: null, cookies: `${cookies}; track=t1` })).toBe('t1');
    expect(findSource({ search: '', sessionValue: null, cookies: 'source=s; utm_source=u' })).toBe('s');
    expect(findSource({ search: '', sessionValue: null, cookies: 'utm_source=a%20b' })).toBe('a b');
    expect(findSource({ search: '?source=', sessionValue: '  ', cookies: 'utm_source=%E0%A4%A' })).toBeNull();
  });
});

describe('the tracker', () => {
  it('without consent records nothing at all: no data layer, no storage', () => {
    const host = fakeHost(1_000 * DAY);
    const t = new AnalyticsTracker(host);
    t.setSource('ads');
    t.discover('web_search');
    t.modelUpgrade('free', 'paid');
    host.advance(10 * 60_000);
    t.setConsent(false);
    expect(host.win.dataLayer).toBeUndefined();
    expect(host.local.map.size).toBe(0);
  });

  it('with consent pushes each event once, with its value and source; withdrawing stops it and forgets the visits', () => {
    const host = fakeHost(1_000 * DAY);
    const t = new AnalyticsTracker(host);
    t.setSource('ads');
    t.setConsent(true);
    t.discover('web_search');
    t.discover('web_search');
    t.modelUpgrade('fake-model', 'fake-paid');
    t.modelUpgrade('fake-model', 'fake-paid');
    host.advance(300_000);
    expect(host.win.dataLayer?.length).toBe(2);
    host.advance(1);
    expect(host.win.dataLayer).toEqual([
      { event: 'engagement_conversion', type: 'feature_discovery', user_value: 15, source: 'ads', metadata: { feature: 'web_search' } },
      { event: 'engagement_conversion', type: 'model_upgrade', user_value: 15, source: 'ads', metadata: { from: 'fake-model', to: 'fake-paid' } },
      { event: 'engagement_conversion', type: 'extended_session', user_value: 10, source: 'ads', metadata: { minutes: 5 } },
    ]);
    t.setConsent(false);
    t.discover('folders');
    expect(host.win.dataLayer).toHaveLength(3);
    expect(host.local.getItem(VISITS_KEY)).toBeNull();
  });

  it('a return visit after 30 minutes of quiet carries its conversion window', () => {
    const host = fakeHost(1_000 * DAY);
    new AnalyticsTracker(host).setConsent(true);
    host.clock += 10 * DAY;
    host.session.map.clear();
    const again = new AnalyticsTracker(host);
    again.setConsent(true);
    expect(host.win.dataLayer?.[0]).toEqual({
      event: 'engagement_conversion', type: 'return_visit', user_value: 25, source: 'direct', metadata: { window: 'within_30_days', daysSinceFirstVisit: 10 },
    });
  });
});
