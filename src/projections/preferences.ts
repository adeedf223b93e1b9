/**
 * Read model: the user's preferences, folded from `preferences.changed` events over the defaults. Pure, like every
 * projection; unlike the table projections it yields one small value, which the engine keeps in memory
 * (core.preferences$) and computes at start from the log's `type` index: no table, so nothing to rebuild.
 */
import type { ProjectedEvent } from './projection';
import { DEFAULT_PREFERENCES, isPreferenceKey, PREFERENCE_CHECKS, type Preferences } from '../protocol/preferences';

/** Preferences after one event: a `preferences.changed` merges its valid fields; any other event changes nothing. */
export function applyPreferences(current: Preferences, event: ProjectedEvent): Preferences {
  if (event.type !== 'preferences.changed') return current;
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(event.payload.changes)) {
    // A field this build does not know (a newer app wrote it) or an invalid value is skipped, never applied.
    if (isPreferenceKey(key) && PREFERENCE_CHECKS[key](value)) next[key] = value;
  }
  return next as unknown as Preferences;
}

/** Preferences after a whole log (or just its `preferences.changed` events), from the defaults. */
export function foldPreferences(events: Iterable<ProjectedEvent>, initial: Preferences = DEFAULT_PREFERENCES): Preferences {
  let prefs = initial;
  for (const e of events) prefs = applyPreferences(prefs, e);
  return prefs;
}
