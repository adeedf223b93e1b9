/**
 * Image and video bytes in the local database: Blobs in the `files` table (never base64 in rows), written before
 * the event that refers to them is appended. Thumbnails (at most 320 px, WebP) and the quadrant split of a grid
 * are made with OffscreenCanvas where the worker has it; without it (tests in Node) the image is its own thumbnail
 * and a grid stays one image.
 */
import type { ImageRef, MessageRow } from '../../events/model';
import { quadrants } from '../../protocol/image-rules';
import type { ParleyDB } from '../db/schema';
import type { IdAllocator } from './ids';
import { imageMime, imageSize } from './image-size';

export const THUMB_MAX = 320;

const canvasAvailable = (): boolean => typeof OffscreenCanvas !== 'undefined' && typeof createImageBitmap === 'function';

async function thumbnail(blob: Blob, width: number, height: number): Promise<Blob | null> {
  if (!canvasAvailable() || (width <= THUMB_MAX && height <= THUMB_MAX)) return null;
  const scale = THUMB_MAX / Math.max(width, height);
  const bitmap = await createImageBitmap(blob, { resizeWidth: Math.max(1, Math.round(width * scale)), resizeHeight: Math.max(1, Math.round(height * scale)), resizeQuality: 'high' });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
  bitmap.close();
  return canvas.convertToBlob({ type: 'image/webp', quality: 0.8 });
}

/**
 * A thumbnail of an image (at most THUMB_MAX px, WebP), or null when the image is small enough to be its own or
 * this worker cannot draw. Run in a file worker for attachments (rooms/library/jobs.ts), never on the page.
 */
export async function imageThumbnail(blob: Blob): Promise<Blob | null> {
  const size = imageSize(new Uint8Array(await blob.slice(0, 64 * 1024).arrayBuffer()));
  return size ? thumbnail(blob, size.width, size.height) : null;
}

/** Stores image bytes (and a thumbnail) as Blobs; returns the reference a message keeps. */
export async function storeImage(db: ParleyDB, ids: IdAllocator, blob: Blob, now: number): Promise<ImageRef> {
  const head = new Uint8Array(await blob.slice(0, 64 * 1024).arrayBuffer());
  const mimeType = imageMime(head) ?? (blob.type || 'application/octet-stream');
  const size = imageSize(head) ?? { width: 0, height: 0 };
  const file = blob.type === mimeType ? blob : new Blob([blob], { type: mimeType });
  const fileId = ids.next(now);
  const thumb = await thumbnail(file, size.width, size.height).catch(() => null);
  const thumbId = thumb ? ids.next(now) : fileId;
  await db.transaction('rw', db.files, async () => {
    await db.files.put({ id: fileId, file });
    if (thumb) await db.files.put({ id: thumbId, file: thumb });
  });
  return { fileId, thumbId, mimeType, width: size.width, height: size.height, bytes: file.size };
}

/** The four quadrants of a grid image as PNG Blobs, or null when this worker cannot draw. */
export async function splitGrid(blob: Blob): Promise<Blob[] | null> {
  if (!canvasAvailable()) return null;
  const bitmap = await createImageBitmap(blob);
  try {
    return await Promise.all(
      quadrants(bitmap.width, bitmap.height).map(async (q) => {
        const canvas = new OffscreenCanvas(q.width, q.height);
        canvas.getContext('2d')?.drawImage(bitmap, q.x, q.y, q.width, q.height, 0, 0, q.width, q.height);
        return canvas.convertToBlob({ type: 'image/png' });
      }),
    );
  } finally {
    bitmap.close();
  }
}

export async function readFile(db: ParleyDB, id: number): Promise<Blob | null> {
  const row = await db.files.get(id);
  if (!row) return null;
  return row.file instanceof Blob ? row.file : new Blob([row.file]);
}

/** Base64 of bytes, in slices (String.fromCharCode on a huge array overflows the stack). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(out);
}

export async function dataUrlOf(blob: Blob): Promise<string> {
  return `data:${blob.type || 'image/png'};base64,${toBase64(new Uint8Array(await blob.arrayBuffer()))}`;
}

/** Blobs of base64 answers (the gateway's data list). */
export function blobOfBase64(b64: string, mime: string): Blob {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type: mime });
}

/** Messages with their images as the export shape (each b64_json, spec 000 section 3), read from `files`. */
export async function withExportImages<M extends Pick<MessageRow, 'images'>>(db: ParleyDB, messages: readonly M[]): Promise<(Omit<M, 'images'> & { images?: { b64_json: string | null }[] })[]> {
  return Promise.all(
    messages.map(async (m) => {
      if (!m.images || m.images.length === 0) return { ...m, images: undefined };
      const images = await Promise.all(
        m.images.map(async (ref) => {
          const blob = await readFile(db, ref.fileId);
          return { b64_json: blob ? toBase64(new Uint8Array(await blob.arrayBuffer())) : null };
        }),
      );
      return { ...m, images };
    }),
  );
}
