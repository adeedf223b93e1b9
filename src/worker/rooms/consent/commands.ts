/**
 * Analytics consent (spec 001 sections 3, 4, 6, 7): the session's consent lives at the gateway (src/server/consent);
 * the engine checks it once a session exists (3 retries at 500 ms), again when the session changes (a recovery code),
 * and asks for it to be required when a tab saw a tracked source. Grant and deny go through the retry helper (5
 * attempts, backoff from 1 s). Denying takes effect here at once, before the gateway answers; granting only once
 * the gateway recorded it. Failures are logged only (spec 001 section 8). Not engine data: the gateway is the truth.
 */
import { BehaviorSubject, Subscription, combineLatest, distinctUntilChanged, filter, firstValueFrom, map, of, timeout, type Observable } from 'rxjs';
import { retryConsentCheck, retryWithBackoff, type Attempt, type Sleep } from '../../../analytics/retry';
import { CONSENT_STATUSES, type ConsentHandlers, type ConsentState, type ConsentView } from '../../../protocol/account';
import type { ActionResult } from '../../../protocol/engine';
import type { EngineCore, Room, RoomKind } from '../../core';
import type { QueryHandlers } from '../../query-types';
import { request, type Result } from '../money/money-client';

export const CONSENT_ERROR = 'Your analytics choice could not be saved; try again';
/** How long a consent call waits for the session to exist. */
export const SESSION_WAIT_MS = 30_000;

export function isConsentState(v: unknown): v is ConsentState {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    CONSENT_STATUSES.includes(s.consentStatus as ConsentState['consentStatus']) &&
    typeof s.analyticsConsent === 'boolean' &&
    (s.consentLastUpdated === null || typeof s.consentLastUpdated === 'number') &&
    typeof s.policyVersion === 'string'
  );
}

/** One call as an attempt: done with the state, or try again (network, 5xx, 401 while the session is renewed). */
function asAttempt(result: Result<unknown>): Attempt<ConsentState | 'refused'> {
  if (result.ok) return isConsentState(result.value) ? { done: true, value: result.value } : { done: false };
  if (result.status >= 400 && result.status < 500 && result.status !== 401 && result.status !== 429) return { done: true, value: 'refused' };
  return { done: false };
}

export class ConsentRoom implements Room {
  readonly consent$ = new BehaviorSubject<ConsentState | null>(null);
  private readonly subscription: Subscription;

  constructor(
    private readonly core: EngineCore,
    private readonly sleep?: Sleep,
  ) {
    this.subscription = core.session$
      .pipe(
        map((s) => s.session?.id ?? null),
        distinctUntilChanged(),
      )
      .subscribe((id) => {
        if (id === null) this.consent$.next(null);
        else void this.check();
      });
  }

  dispose(): void {
    this.subscription.unsubscribe();
  }

  /** GET /api/consent/status with 3 retries at 500 ms; on failure the state stays unknown (nothing is tracked). */
  async check(): Promise<void> {
    const state = await retryConsentCheck(async () => asAttempt(await request('GET', '/api/consent/status')), this.sleep);
    if (state === null || state === 'refused') console.warn('Consent status check failed');
    else this.consent$.next(state);
  }

  private async send(path: string, body: unknown): Promise<ConsentState | null> {
    const state = await retryWithBackoff(async () => asAttempt(await request('POST', path, body)), this.sleep);
    if (state === null || state === 'refused') {
      console.warn(`Consent call ${path} failed`);
      return null;
    }
    this.consent$.next(state);
    return state;
  }

  async requireForAds(source: string): Promise<ActionResult> {
    const clean = source.trim().slice(0, 100);
    if (clean === '') return { ok: false, error: 'No source' };
    // Already decided: nothing to ask.
    const known = this.consent$.value;
    if (known && (known.consentStatus === 'granted' || known.consentStatus === 'denied')) return { ok: true };
    // Consent actions need a session (spec 001 section 6): a tab that saw a source at load waits for it.
    const session = await firstValueFrom(this.core.session$.pipe(filter((s) => s.session !== null), timeout({ first: SESSION_WAIT_MS, with: () => of(null) })));
    if (session === null) return { ok: false, error: CONSENT_ERROR };
    return (await this.send('/api/consent/require-for-ads', { source: clean })) ? { ok: true } : { ok: false, error: CONSENT_ERROR };
  }

  async decide(granted: boolean): Promise<ActionResult> {
    const before = this.consent$.value;
    // Denying stops tracking now, whatever the network does.
    if (!granted) {
      this.consent$.next({ consentStatus: 'denied', analyticsConsent: false, consentLastUpdated: Date.now(), policyVersion: before?.policyVersion ?? '' });
    }
    const state = await this.send(granted ? '/api/consent/grant' : '/api/consent/deny', { categories: ['analytics'] });
    return state ? { ok: true } : { ok: false, error: CONSENT_ERROR };
  }

  view$(): Observable<ConsentView> {
    return combineLatest([this.consent$, this.core.session$]).pipe(
      map(([consent, session]) => ({ consent, showBanner: consent?.consentStatus === 'pending' && session.session !== null })),
    );
  }
}

const CONSENT_ROOM: RoomKind<ConsentRoom> = { name: 'consent', create: (core) => new ConsentRoom(core) };
export function consentRoom(core: EngineCore): ConsentRoom {
  return core.room(CONSENT_ROOM);
}

export function consentCommands(core: EngineCore): ConsentHandlers {
  const r = consentRoom(core);
  return {
    requireConsentForAds: (source) => (typeof source === 'string' ? r.requireForAds(source) : Promise.resolve({ ok: false, error: 'No source' })),
    grantConsent: () => r.decide(true),
    denyConsent: () => r.decide(false),
  };
}

export function consentQueries(core: EngineCore): Pick<QueryHandlers, 'consent'> {
  const r = consentRoom(core);
  return { consent: () => r.view$() };
}
