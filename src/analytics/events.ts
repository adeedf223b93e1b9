/**
 * Analytics events (spec 001 sections 3 and 9), pure: the engagement conversion input (type, user_value, source,
 * metadata) with its fixed values, the extended-session rule and the delayed-conversion windows, and where a
 * visitor's source comes from. The tab's tracker (./tracker.ts) decides whether anything is recorded at all.
 */

export type EngagementType = 'return_visit' | 'model_upgrade' | 'feature_discovery' | 'extended_session';

/** Spec 001 section 9: fixed event values. */
export const ENGAGEMENT_VALUES: { readonly [K in EngagementType]: number } = {
  return_visit: 25,
  model_upgrade: 15,
  feature_discovery: 15,
  extended_session: 10,
};

/** Spec 001 section 9: a session counts as extended above 300000 ms (5 minutes). */
export const EXTENDED_SESSION_MS = 300_000;
const DAY_MS = 24 * 3600 * 1000;
/** Spec 001 section 9: delayed-conversion windows, up to 7 days, up to 30 days, otherwise extended. */
export const CONVERSION_WINDOWS = [
  { name: 'within_7_days', maxMs: 7 * DAY_MS },
  { name: 'within_30_days', maxMs: 30 * DAY_MS },
] as const;
export type ConversionWindow = (typeof CONVERSION_WINDOWS)[number]['name'] | 'extended';

/** Ours: a visit after at least this much quiet is a return visit (the common analytics session timeout). */
export const RETURN_VISIT_GAP_MS = 30 * 60 * 1000;

export type Metadata = Record<string, string | number | boolean>;

/** Spec 001 section 3: analytics engagement conversion input. */
export interface EngagementConversion {
  type: EngagementType;
  user_value: number;
  source: string;
  metadata: Metadata;
}

/** What goes on the data layer: the conversion, named as a data layer event. */
export type DataLayerEvent = { event: 'engagement_conversion' } & EngagementConversion;

export function engagementConversion(type: EngagementType, source: string, metadata: Metadata = {}): EngagementConversion {
  return { type, user_value: ENGAGEMENT_VALUES[type], source, metadata };
}

export function isSessionExtended(startedAt: number, now: number): boolean {
  return now - startedAt > EXTENDED_SESSION_MS;
}

/** The window a conversion falls in, counted from the first visit. */
export function conversionWindow(firstVisitAt: number, now: number): ConversionWindow {
  const elapsed = Math.max(0, now - firstVisitAt);
  for (const w of CONVERSION_WINDOWS) if (elapsed <= w.maxMs) return w.name;
  return 'extended';
}

/** Spec 001 section 7: cookies that may carry the source, in the order they are read. */
export const SOURCE_COOKIES = ['track', 'source', 'referral_source', 'utm_source'] as const;
/** Session storage key that keeps the source of this visit across pages. */
export const SOURCE_SESSION_KEY = 'source';
const SOURCE_MAX = 100;

function clean(v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const t = v.trim();
  return t === '' || !/^[\x20-\x7E]+$/.test(t) ? null : t.slice(0, SOURCE_MAX);
}

/** Reads one cookie's value from a `document.cookie` string (URL-decoded; a malformed one is skipped). */
export function cookieValue(cookies: string, name: string): string | null {
  for (const part of cookies.split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The visitor's source (spec 001 section 7): the `source` query parameter, else session storage, else the first of
 * the cookies track, source, referral_source, utm_source. null when none says.
 */
export function findSource(input: { search: string; sessionValue: string | null; cookies: string }): string | null {
  const fromQuery = clean(new URLSearchParams(input.search).get('source'));
  if (fromQuery) return fromQuery;
  const fromSession = clean(input.sessionValue);
  if (fromSession) return fromSession;
  for (const name of SOURCE_COOKIES) {
    const v = clean(cookieValue(input.cookies, name));
    if (v) return v;
  }
  return null;
}
