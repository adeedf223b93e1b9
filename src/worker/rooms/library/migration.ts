/**
 * The background migration of spec 000 section 4: inline images in old assistant messages (base64 data URLs in
 * the text, as Markdown images or <img> tags) move into the message's `images` field, in batches of 3 (section 9).
 * Each message moved is a `message.imagesExtracted` event; a batch is one append. It is resumable by construction:
 * a moved message no longer has inline images, so an engine that starts after a reload finds only what is left.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ImageRef, MessageRow } from '../../../events/model';
import { MIGRATION_IMAGE_BATCH } from '../../../protocol/attachments';
import type { EngineCore } from '../../core';
import { blobOfBase64, storeImage } from '../../infra/files';

/** Spec 001 section 3: an image attachment extracted from markup. */
export interface ExtractedImage {
  mimeType: string;
  base64: string;
  fullTag: string;
}

// Bounded, non-overlapping quantifiers: linear in the text (the base64 run is one character class).
const MARKDOWN = /!\[[^\]\n]{0,500}\]\(data:(image\/(?:png|jpeg|jpg|gif|webp));base64,([A-Za-z0-9+/=]+)\)/g;
const IMG_TAG = /<img\b[^>]{0,1000}?\bsrc=["']data:(image\/(?:png|jpeg|jpg|gif|webp));base64,([A-Za-z0-9+/=]+)["'][^>]{0,1000}>/gi;

/** The inline images of a text and the text without them. */
export function extractInlineImages(text: string): { text: string; images: ExtractedImage[] } {
  if (!text.includes('data:image/')) return { text, images: [] };
  const images: ExtractedImage[] = [];
  const take = (fullTag: string, mimeType: string, base64: string): string => {
    images.push({ mimeType, base64, fullTag });
    return '';
  };
  const out = text.replace(MARKDOWN, take).replace(IMG_TAG, take);
  return { text: out.replace(/\n{3,}/g, '\n\n').trim(), images };
}

/**
 * The event that moves a message's inline images, or null when it has none. Each image's bytes go to `files` first
 * (`store`, as media's images do: ../../infra/files.ts), so the event carries references, never base64.
 */
export async function imagesExtractedEvent(message: MessageRow, now: number, newId: () => string, store: (blob: Blob) => Promise<ImageRef>): Promise<NewEvent | null> {
  if (message.role !== 'assistant' || typeof message.prompt !== 'string') return null;
  const { text, images } = extractInlineImages(message.prompt);
  if (images.length === 0) return null;
  const moved: ImageRef[] = [];
  for (const img of images) moved.push(await store(blobOfBase64(img.base64, img.mimeType === 'image/jpg' ? 'image/jpeg' : img.mimeType)));
  return makeEvent('message.imagesExtracted', { conversationSlug: message.conversationSlug, messageId: message.id, prompt: text, images: [...(message.images ?? []), ...moved], at: now }, newId(), now);
}

/** Meta key set once a run finds nothing left to move (old messages only: later runs skip the scan). */
export const INLINE_IMAGES_DONE_KEY = 'migration:inline-images-done';

/** Runs the migration to the end, a batch of 3 messages per append, yielding between batches. Returns messages moved. */
export async function migrateInlineImages(core: EngineCore, batch: number = MIGRATION_IMAGE_BATCH): Promise<number> {
  if ((await core.db.meta.get(INLINE_IMAGES_DONE_KEY)) !== undefined) return 0;
  const candidates = await core.db.messages.filter((m) => m.role === 'assistant' && typeof m.prompt === 'string' && m.prompt.includes('data:image/')).primaryKeys();
  let moved = 0;
  for (let i = 0; i < candidates.length; i += batch) {
    // The engine ended (its database is closing): the next start goes on from what is done.
    if (core.ended) return moved;
    const rows = await core.db.messages.bulkGet(candidates.slice(i, i + batch));
    const now = Date.now();
    const events: NewEvent[] = [];
    for (const m of rows) {
      const event = m ? await imagesExtractedEvent(m, now, () => crypto.randomUUID(), (blob) => storeImage(core.db, core.ids, blob, now)) : null;
      if (event) events.push(event);
    }
    if (events.length > 0) await core.append(events);
    moved += events.length;
    await new Promise((r) => setTimeout(r, 0));
  }
  await core.db.meta.put({ key: INLINE_IMAGES_DONE_KEY, value: { moved, at: Date.now() } });
  return moved;
}
