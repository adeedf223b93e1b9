/**
 * The attachment step of the submit flow (spec 000 section 4, step 3 "describe pending images", and section 5):
 * what a user message carries once its attachments are taken into account.
 *
 * - A vision model (src/protocol/vision.ts) gets each image inline as an image_url part (85 tokens each).
 * - Any other model gets each image described by POST /api/image-description, appended to the prompt; an image
 *   that cannot be described is replaced by '[Image could not be described]' (notice 'Failed to get image
 *   description'); if the step itself fails, the message goes without descriptions ('Error processing images').
 * - Document text goes into the prompt with the file name; what does not fit the model's context is cut, with a
 *   visible note of how much was used.
 *
 * Pure apart from the `describe` call and `notify`, which the caller passes in (tests pass fakes).
 */
import type { ChatPart } from '../../../protocol/api';
import type { Notice } from '../../../protocol/engine';
import { IMAGE_DESCRIPTION } from '../../../protocol/attachments';
import type { LibraryRow } from '../../../events/model';

export interface AttachmentInput {
  row: LibraryRow;
  /** The stored file (images only are read). */
  blob: Blob | null;
}

export interface AttachedPrompt {
  /** The user message's content: text, or text and image parts for a vision model. */
  prompt: string | ChatPart[];
  /** Library ids the message carries (messageLibrary links). */
  libraryIds: number[];
  /** Document names cut to fit, with the share used. */
  cut: { name: string; used: number; total: number }[];
}

/** The note shown in the prompt when a document is cut to the model's context. Ours. */
export function cutNote(name: string, used: number, total: number): string {
  const pct = total === 0 ? 100 : Math.max(1, Math.floor((used / total) * 100));
  return `[Note: only the first ${used.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} characters of ${name} (${pct}%) fit the model's context; the rest was left out.]`;
}

/** A document block: its name, then its text, cut to `maxChars` with the note. */
export function documentBlock(name: string, text: string, maxChars: number): { text: string; cut: { name: string; used: number; total: number } | null } {
  const header = `[File: ${name}]\n`;
  if (text.length <= maxChars) return { text: header + text, cut: null };
  const used = Math.max(0, maxChars);
  return { text: `${header}${text.slice(0, used)}\n${cutNote(name, used, text.length)}`, cut: { name, used, total: text.length } };
}

/** A Blob as a data URL (base64), in chunks so a 3.5 MB image never builds one huge argument list. */
export async function blobToDataUrl(blob: Blob, mimeType: string): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mimeType};base64,${btoa(binary)}`;
}

export interface AttachStepOptions {
  prompt: string;
  items: readonly AttachmentInput[];
  vision: boolean;
  /** Characters of document text the model's context leaves for attachments (shared by the documents in order). */
  budgetChars: number;
  describe: (dataUrl: string, item: LibraryRow) => Promise<string>;
  notify: (notice: Omit<Notice, 'id'>) => void;
}

export async function buildAttachedPrompt(o: AttachStepOptions): Promise<AttachedPrompt> {
  const ready = o.items.filter((i) => i.row.status === 'completed');
  const libraryIds = ready.map((i) => i.row.id);
  const blocks: string[] = [];
  const parts: ChatPart[] = [];
  const cut: AttachedPrompt['cut'] = [];
  let budget = o.budgetChars;
  for (const { row } of ready) {
    if (row.type !== 'file') continue;
    const text = row.content.join('\n\n');
    const block = documentBlock(row.name, text, Math.max(0, budget));
    budget -= Math.min(text.length, Math.max(0, budget));
    blocks.push(block.text);
    if (block.cut) cut.push(block.cut);
  }
  const images = ready.filter((i) => i.row.type === 'image' && i.blob !== null);
  if (o.vision) {
    for (const { row, blob } of images) parts.push({ type: 'image_url', image_url: { url: await blobToDataUrl(blob as Blob, row.mimeType || 'image/jpeg') } });
  } else if (images.length > 0) {
    const described: string[] = [];
    try {
      let failed = false;
      for (const { row, blob } of images) {
        const url = await blobToDataUrl(blob as Blob, row.mimeType || 'image/jpeg');
        let description: string;
        try {
          description = (await o.describe(url, row)).trim() || IMAGE_DESCRIPTION.notDescribed;
        } catch {
          failed = true;
          description = IMAGE_DESCRIPTION.notDescribed;
        }
        described.push(`[Image: ${row.name}]\n${description}`);
      }
      blocks.push(...described);
      if (failed) o.notify({ title: IMAGE_DESCRIPTION.failedTitle, text: IMAGE_DESCRIPTION.notDescribed, tone: 'orange', durationMs: 5_000 });
    } catch {
      // The images could not be read at all: the message goes without descriptions (spec 000 section 8).
      o.notify({ title: IMAGE_DESCRIPTION.processingErrorTitle, text: IMAGE_DESCRIPTION.processingErrorText, tone: 'orange', durationMs: 5_000 });
    }
  }
  const text = [o.prompt, ...blocks].filter((t) => t !== '').join('\n\n');
  const prompt: string | ChatPart[] = parts.length > 0 ? [{ type: 'text', text }, ...parts] : text;
  return { prompt, libraryIds, cut };
}
