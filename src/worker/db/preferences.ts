/** Loads the preferences at engine start: the log's `preferences.changed` events (its `type` index), folded. */
import { upcast } from '../../events/upcasters';
import { foldPreferences } from '../../projections/preferences';
import type { Preferences } from '../../protocol/preferences';
import type { ParleyDB } from './schema';

export const PREFERENCES_EVENT = 'preferences.changed';

export async function loadPreferences(db: ParleyDB): Promise<Preferences> {
  // The type index yields rows in primary-key (seq) order within one type: log order.
  const rows = await db.events.where('type').equals(PREFERENCES_EVENT).toArray();
  return foldPreferences(rows.map((r) => upcast(r)));
}
