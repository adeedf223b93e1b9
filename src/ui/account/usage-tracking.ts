/**
 * The tab's analytics wiring: the visitor's source (query, session storage, cookies: spec 001 section 7) asks the
 * engine to require consent; the engine's consent decides whether the tracker records anything; features used for
 * the first time (by the UI contract's control names) and moves from a free to a paid model are its events.
 */
import { subscribeKey } from 'valtio/utils';
import { findSource, SOURCE_SESSION_KEY } from '../../analytics/events';
import { AnalyticsTracker } from '../../analytics/tracker';
import type { ModelInfo } from '../../protocol/api';
import type { ActionResult } from '../../protocol/engine';
import { connection, engine } from '../engine';
import { view } from '../state';

/** Controls (by their accessible names, DESIGN UI contract) whose first use is a feature discovery. */
export const FEATURE_CONTROLS: Readonly<Record<string, string>> = {
  'Web search': 'web_search',
  'Add model': 'multi_model',
  'Open in viewer': 'code_viewer',
  Scratchpad: 'scratchpad',
  Export: 'export',
  Instructions: 'system_prompt',
  Regenerate: 'regenerate',
  'New folder': 'folders',
  'Move to folder': 'folders',
  Deposit: 'deposit',
};
/** Pages whose first visit is a feature discovery. */
export const FEATURE_PAGES: Readonly<Record<string, string>> = { updates: 'updates', invitations: 'invitations', wallet: 'wallet', settings: 'settings' };

export const tracker = new AnalyticsTracker({
  win: window as unknown as { dataLayer?: unknown[] },
  local: localStorage,
  session: sessionStorage,
  now: () => Date.now(),
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
  clearTimeout: (h) => window.clearTimeout(h as number),
});

function controlName(el: Element): string {
  return (el.getAttribute('aria-label') ?? el.textContent ?? '').trim();
}

/**
 * Starts the wiring for this tab: the visitor's source, the consent, model upgrades and feature clicks. Returns the
 * function that stops it. Loaded by ./use-analytics.ts after the first page has painted (a chunk of its own).
 */
export function startAnalytics(): () => void {
  let sessionValue: string | null = null;
  try {
    sessionValue = sessionStorage.getItem(SOURCE_SESSION_KEY);
  } catch {
    sessionValue = null;
  }
  const source = findSource({ search: location.search, sessionValue, cookies: document.cookie });
  tracker.setSource(source);
  if (source !== null) {
    try {
      sessionStorage.setItem(SOURCE_SESSION_KEY, source);
    } catch {
      // Session storage blocked: the source still counts for this page.
    }
    void engine<ActionResult>((api) => api.requireConsentForAds(source));
  }
  const unsubscribe = connection.subscribe({ kind: 'consent' }, (v) => tracker.setConsent(v.consent?.consentStatus === 'granted' && v.consent.analyticsConsent));

  let models: ModelInfo[] = [];
  const unsubscribeModels = connection.subscribe({ kind: 'models' }, (v) => (models = v.models));
  let previous = view.model;
  const unsubscribeModel = subscribeKey(view, 'model', (next) => {
    const from = models.find((m) => m.id === previous);
    const to = models.find((m) => m.id === next);
    if (from?.free && to && !to.free) tracker.modelUpgrade(from.id, to.id);
    previous = next;
  });

  const onClick = (e: MouseEvent) => {
    if (!tracker.enabled) return;
    const el = (e.target as Element | null)?.closest('button, a, [role=switch], [role=menuitem]');
    const feature = el ? FEATURE_CONTROLS[controlName(el)] : undefined;
    if (feature) tracker.discover(feature);
  };
  document.addEventListener('click', onClick, true);
  return () => {
    unsubscribe();
    unsubscribeModels();
    unsubscribeModel();
    document.removeEventListener('click', onClick, true);
  };
}

/** A page was shown: its first visit may be a feature discovery. */
export function routeShown(routeName: string): void {
  const feature = FEATURE_PAGES[routeName];
  if (feature) tracker.discover(feature);
}
