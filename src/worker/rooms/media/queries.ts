/**
 * Live queries of media: the gallery (every generated image across conversations, newest first, at most 1000; spec
 * 001 section 5) and the per-model settings. Both read the log's index by event type, then the rows they need: the
 * gallery never loads an image's bytes (the view asks for each thumbnail as a Blob when it shows it).
 */
import { asyncScheduler, defer, filter, from, merge, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { ImageGeneratedV1 } from '../../../events/catalogue';
import type { ModelSettings } from '../../../events/model';
import type { GalleryItem } from '../../../protocol/engine';
import { foldFavourites, foldModelSettings, MODEL_SETTINGS_EVENT } from '../../../projections/model-settings';
import { promptText } from '../../../projections/projection';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import type { QueryHandlers } from '../../query-types';

/** Spec 001 sections 5 and 9: the gallery holds at most 1000 images. */
export const GALLERY_MAX = 1000;

export async function loadGallery(core: EngineCore): Promise<GalleryItem[]> {
  await core.whenStarted();
  if (!core.storageOk) return [];
  const generated = await core.db.events.where('type').equals('image.generated').reverse().toArray();
  const favourites = foldFavourites((await core.db.events.where('type').equals('image.favourited').toArray()) as never);
  const payloads = generated.map((e) => e.payload as ImageGeneratedV1);
  const messages = await core.db.messages.bulkGet(payloads.map((p) => p.messageId));
  const live = messages.filter((m): m is NonNullable<typeof m> => m !== undefined);
  const parents = await core.db.messages.bulkGet(live.map((m) => m.parentMessageId ?? -1));
  const promptOf = new Map(live.map((m, i) => [m.id, parents[i] ? promptText(parents[i].prompt) : '']));
  const slugs = [...new Set(live.map((m) => m.conversationSlug))];
  const conversations = await core.db.conversations.where('slug').anyOf(slugs).toArray();
  const names = new Map(conversations.filter((c) => c.deletedAt === undefined).map((c) => [c.slug, c.name]));
  const byId = new Map(live.map((m) => [m.id, m]));
  const out: GalleryItem[] = [];
  for (const p of payloads) {
    const m = byId.get(p.messageId);
    const name = m ? names.get(m.conversationSlug) : undefined;
    // A deleted message or conversation takes its images out of the gallery; a replaced message shows its current images.
    if (!m || name === undefined || !m.images) continue;
    for (const ref of m.images) {
      out.push({ ...ref, messageId: m.id, slug: m.conversationSlug, conversationName: name, prompt: promptOf.get(m.id) ?? '', model: m.model, timestamp: m.timestamp, favourite: favourites.has(ref.fileId) });
      if (out.length === GALLERY_MAX) return out;
    }
    byId.delete(p.messageId);
  }
  return out;
}

async function loadSettings(core: EngineCore): Promise<Record<string, ModelSettings>> {
  await core.whenStarted();
  if (!core.storageOk) return {};
  return foldModelSettings((await core.db.events.where('type').equals(MODEL_SETTINGS_EVENT).toArray()) as never);
}

function followEvents<T>(core: EngineCore, types: readonly string[], load: () => Promise<T>, alsoOnList: boolean): Observable<T> {
  const wanted = new Set(types);
  return merge(core.changes$.pipe(filter((c) => c.all || (alsoOnList && c.conversations))), core.events$.pipe(filter((batch) => batch.some((e) => wanted.has(e.type))))).pipe(
    startWith(null),
    throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
    switchMap(() => defer(() => from(load()))),
  );
}

export function mediaQueries(core: EngineCore): Pick<QueryHandlers, 'gallery' | 'modelSettings'> {
  return {
    gallery: () => followEvents(core, ['image.favourited'], () => loadGallery(core), true),
    modelSettings: () => followEvents(core, [MODEL_SETTINGS_EVENT], () => loadSettings(core), false),
  };
}
