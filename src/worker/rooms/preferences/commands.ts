/**
 * Preferences (spec 001 sections 3 and 9) as engine data: `setPreferences` appends `preferences.changed` with the
 * fields that really change, and core.preferences$ follows the log, so the values survive a reload and reach
 * every tab through the `preferences` query. The core loads them at start (before replies resume); an imported
 * log may carry preferences too: they are reloaded after it.
 */
import { filter } from 'rxjs';
import { makeEvent } from '../../../events/catalogue';
import { applyPreferences } from '../../../projections/preferences';
import type { PreferencesHandlers } from '../../../protocol/engine';
import { checkPreferenceChanges, isPreferenceKey, type Preferences } from '../../../protocol/preferences';
import type { EngineCore } from '../../core';
import { loadPreferences } from '../../db/preferences';

export function preferencesCommands(core: EngineCore): PreferencesHandlers {
  // Every appended preferences event (from here or any other command) updates the live value, in log order.
  core.events$.subscribe((events) => {
    let prefs = core.preferences$.value;
    for (const e of events) prefs = applyPreferences(prefs, e);
    if (prefs !== core.preferences$.value) core.preferences$.next(prefs);
  });
  // An imported log replaces what we know: read the preferences back from the log. (At start, the core loads them.)
  core.changes$.pipe(filter((c) => c.all)).subscribe(() => {
    loadPreferences(core.db).then(
      (prefs) => core.preferences$.next(prefs),
      (error: unknown) => console.error('Preferences could not be read from the log', error),
    );
  });

  return {
    async setPreferences(changes: Partial<Preferences>): Promise<void> {
      const bad = checkPreferenceChanges(changes);
      if (bad !== null) throw new Error(`Invalid preferences: ${bad}`);
      await core.whenStarted();
      const current = core.preferences$.value;
      const changed: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(changes)) {
        if (isPreferenceKey(key) && !samePreference(current[key], value)) changed[key] = value;
      }
      if (Object.keys(changed).length === 0) return;
      const now = Date.now();
      await core.append([makeEvent('preferences.changed', { changes: changed as Partial<Preferences>, at: now }, crypto.randomUUID(), now)]);
    },
  };
}

/** Equal preference values: the same primitive, or lists with the same items in order (expandedFolderIds). */
function samePreference(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}
