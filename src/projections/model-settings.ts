/**
 * Per-model settings (spec 000 section 3: kept per model id), folded from `modelSettings.changed` events read by
 * their indexed type, like the queue (./queue.ts): a handful of rows need no table of their own. Pure.
 */
import type { NewEvent } from '../events/catalogue';
import type { ModelSettings } from '../events/model';

export const MODEL_SETTINGS_EVENT = 'modelSettings.changed';

export function foldModelSettings(events: Iterable<Pick<NewEvent, 'type' | 'payload'>>, into: Record<string, ModelSettings> = {}): Record<string, ModelSettings> {
  for (const e of events) {
    const ev = e as NewEvent;
    if (ev.type !== 'modelSettings.changed') continue;
    const next: Record<string, unknown> = { ...into[ev.payload.modelId], ...ev.payload.settings };
    // A null clears the setting (the model's default again).
    for (const [k, v] of Object.entries(next)) if (v === null || v === undefined) delete next[k];
    into[ev.payload.modelId] = next as ModelSettings;
  }
  return into;
}

/** Favourite images (`image.favourited`), folded the same way: the file ids marked, last word wins. */
export function foldFavourites(events: Iterable<Pick<NewEvent, 'type' | 'payload'>>, into = new Set<number>()): Set<number> {
  for (const e of events) {
    const ev = e as NewEvent;
    if (ev.type !== 'image.favourited') continue;
    if (ev.payload.favourite) into.add(ev.payload.fileId);
    else into.delete(ev.payload.fileId);
  }
  return into;
}
