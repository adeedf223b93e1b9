/**
 * The images of a chat reply in image lines (spec 000 section 7, ./image-lines.ts): stored as Blobs in `files`
 * before the event that refers to them, then put on the reply's message by `image.generated` (so they show as its
 * images, open in the viewer and join the gallery like any generated image). The reply's cost is its completion's.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ImageRef } from '../../../events/model';
import type { ParleyDB } from '../../db/schema';
import type { IdAllocator } from '../../infra/ids';
import type { LineImage } from './image-lines';
import { blobOfBase64, storeImage } from '../../infra/files';

export async function storeReplyImages(store: { db: ParleyDB; ids: IdAllocator }, reply: { messageId: number; slug: string }, images: readonly LineImage[], at: number): Promise<NewEvent[]> {
  const refs: ImageRef[] = [];
  for (const image of images) {
    let blob: Blob;
    try {
      blob = blobOfBase64(image.data, image.mimeType);
    } catch {
      // Not base64: the line was broken; the reply keeps its text.
      continue;
    }
    refs.push(await storeImage(store.db, store.ids, blob, at));
  }
  if (refs.length === 0) return [];
  return [
    makeEvent(
      'image.generated',
      { messageId: reply.messageId, conversationSlug: reply.slug, images: refs, splitImages: false, taskId: null, cost: 0, paymentSource: null, isNSFW: false, at },
      crypto.randomUUID(),
      at,
    ),
  ];
}
