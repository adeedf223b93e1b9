/**
 * The tab's analytics tracker. Events go to `window.dataLayer`, a first-party data layer: no tag manager or other
 * third-party script is loaded (docs/decisions.md), and nothing here makes a request. Only with analytics consent
 * (the engine's `consent` query: granted) is anything recorded; without it, nothing at all: the data layer is not
 * even created, and no visit bookkeeping is written. Withdrawing consent removes the bookkeeping.
 */
import {
  conversionWindow,
  engagementConversion,
  EXTENDED_SESSION_MS,
  RETURN_VISIT_GAP_MS,
  type DataLayerEvent,
  type EngagementType,
  type Metadata,
} from './events';

/** Local storage key of the visit bookkeeping (first and last visit, features already discovered). */
export const VISITS_KEY = 'analytics:visits';
/** Session storage keys: when this tab's session started, and one-per-session events already sent. */
const SESSION_START_KEY = 'analytics:sessionStart';
const SESSION_SENT_KEY = 'analytics:sent';

interface Visits {
  firstVisitAt: number;
  lastVisitAt: number;
  discovered: string[];
}

export interface TrackerHost {
  win: { dataLayer?: unknown[] };
  local: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  session: Pick<Storage, 'getItem' | 'setItem'>;
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

function readJson<T>(storage: Pick<Storage, 'getItem'>, key: string): T | null {
  try {
    const raw = storage.getItem(key);
    return raw === null ? null : (JSON.parse(raw) as T);
  } catch {
    return null;
  }
}

export class AnalyticsTracker {
  private consented = false;
  private source = 'direct';
  private extendedTimer: unknown = null;

  constructor(private readonly host: TrackerHost) {}

  get enabled(): boolean {
    return this.consented;
  }

  setSource(source: string | null): void {
    this.source = source ?? 'direct';
  }

  /** Consent changed (or became known). Granting starts tracking this visit; anything else stops it and forgets. */
  setConsent(granted: boolean): void {
    if (granted === this.consented) return;
    this.consented = granted;
    if (!granted) {
      if (this.extendedTimer !== null) this.host.clearTimeout(this.extendedTimer);
      this.extendedTimer = null;
      this.host.local.removeItem(VISITS_KEY);
      return;
    }
    this.startVisit();
  }

  /** A feature used for the first time in this browser: feature_discovery (once per feature). */
  discover(feature: string): void {
    if (!this.consented) return;
    const visits = this.visits();
    if (!visits || visits.discovered.includes(feature)) return;
    visits.discovered.push(feature);
    this.saveVisits(visits);
    this.push('feature_discovery', { feature });
  }

  /** The user moved from a free model to a paid one (once per tab session). */
  modelUpgrade(from: string, to: string): void {
    if (!this.consented || this.sentThisSession('model_upgrade')) return;
    this.push('model_upgrade', { from, to });
  }

  private startVisit(): void {
    const now = this.host.now();
    const previous = this.visits();
    const visits: Visits = previous ?? { firstVisitAt: now, lastVisitAt: now, discovered: [] };
    if (previous && now - previous.lastVisitAt >= RETURN_VISIT_GAP_MS && !this.sentThisSession('return_visit')) {
      this.push('return_visit', { window: conversionWindow(previous.firstVisitAt, now), daysSinceFirstVisit: Math.floor((now - previous.firstVisitAt) / 86_400_000) });
    }
    visits.lastVisitAt = now;
    this.saveVisits(visits);
    // Extended session: more than 5 minutes since this tab's session began (once per session).
    let started = Number(this.host.session.getItem(SESSION_START_KEY));
    if (!Number.isFinite(started) || started <= 0) {
      started = now;
      this.host.session.setItem(SESSION_START_KEY, String(now));
    }
    const due = Math.max(0, started + EXTENDED_SESSION_MS + 1 - now);
    this.extendedTimer = this.host.setTimeout(() => {
      this.extendedTimer = null;
      if (this.consented && !this.sentThisSession('extended_session')) this.push('extended_session', { minutes: Math.floor((this.host.now() - started) / 60_000) });
    }, due);
  }

  private visits(): Visits | null {
    const v = readJson<Visits>(this.host.local, VISITS_KEY);
    return v && typeof v.firstVisitAt === 'number' && typeof v.lastVisitAt === 'number' && Array.isArray(v.discovered) ? v : null;
  }

  private saveVisits(v: Visits): void {
    try {
      this.host.local.setItem(VISITS_KEY, JSON.stringify(v));
    } catch {
      // Storage full or blocked: tracking goes on without the bookkeeping.
    }
  }

  /** Marks a one-per-session event as sent; true when it had been sent already. */
  private sentThisSession(type: EngagementType): boolean {
    const sent = readJson<string[]>(this.host.session, SESSION_SENT_KEY) ?? [];
    if (sent.includes(type)) return true;
    this.host.session.setItem(SESSION_SENT_KEY, JSON.stringify([...sent, type]));
    return false;
  }

  private push(type: EngagementType, metadata: Metadata): void {
    if (!this.consented) return;
    const event: DataLayerEvent = { event: 'engagement_conversion', ...engagementConversion(type, this.source, metadata) };
    (this.host.win.dataLayer ??= []).push(event);
  }
}
