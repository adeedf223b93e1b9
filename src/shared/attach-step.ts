/**
 * The attachment step of the submit flow (spec 000 section 4, step 3 "describe pending images", and section 5):
 * what a user message carries once its attachments are taken into account.
 *
 * - A vision model (src/protocol/vision.ts) gets each image inline as an image_url part of the prompt (85 tokens).
 * - Any other model gets each image described by POST /api/image-description: the description is the file's text,
 *   appended to the prompt for the model (`filesContext`) in place of the image; an image that cannot be described
 *   gets '[Image could not be described]' (notice 'Failed to get image description'); if the images cannot be read
 *   at all, the message goes without descriptions ('Error processing images').
 * - A document's text goes in with the file name; what does not fit the model's context is cut, with a note of how
 *   much was used, which the conversation shows under the message.
 *
 * The message keeps the user's own words as its prompt and the files beside it (`MessageRow.files`), so the view
 * shows chips, not pages of extracted text, and every later request (regenerate, continue) sends the same text.
 * Pure apart from the `describe` call and `notify`, which the caller passes in (tests pass fakes).
 */
import type { ChatPart } from '../protocol/api';
import type { Notice } from '../protocol/engine';
import { IMAGE_DESCRIPTION, INLINE_IMAGE_TOKENS } from '../protocol/attachments';
import type { LibraryRow, MessageFile } from '../events/model';

export interface AttachmentInput {
  row: LibraryRow;
  /** The stored file (images only are read). */
  blob: Blob | null;
}

export interface AttachedPrompt {
  /** The user message's prompt: its text, or text and image parts for a vision model. */
  prompt: string | ChatPart[];
  /** The files the message carries, with the text each adds for the model. */
  files: MessageFile[];
  /** Library ids the message carries (messageLibrary links). */
  libraryIds: number[];
  /** Document names cut to fit, with the share used. */
  cut: { name: string; used: number; total: number }[];
}

/** Characters of budget an inline image takes: its 85 tokens at the engine's 4 characters a token. */
const IMAGE_CHARS = INLINE_IMAGE_TOKENS * 4;

/** The note shown when a document is cut to the model's context. Ours. */
export function cutNote(name: string, used: number, total: number): string {
  const pct = total === 0 ? 100 : Math.max(1, Math.floor((used / total) * 100));
  return `[Note: only the first ${used.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} characters of ${name} (${pct}%) fit the model's context; the rest was left out.]`;
}

/** A document's text cut to `maxChars`, with the note when cut. */
export function documentFile(row: LibraryRow, text: string, maxChars: number): { file: MessageFile; cut: { name: string; used: number; total: number } | null } {
  const base = { libraryId: row.id, name: row.name, type: 'file' as const, sizeBytes: row.sizeBytes ?? 0 };
  if (text.length <= maxChars) return { file: { ...base, text }, cut: null };
  const used = Math.max(0, maxChars);
  return { file: { ...base, text: text.slice(0, used), note: cutNote(row.name, used, text.length) }, cut: { name: row.name, used, total: text.length } };
}

/** What a message's files add to its prompt for the model: each document and image description under its name. */
export function filesContext(files: readonly MessageFile[] | undefined): string {
  if (!files) return '';
  const blocks: string[] = [];
  for (const f of files) {
    if (f.text === undefined) continue;
    const head = f.type === 'image' ? `[Image: ${f.name}]` : `[File: ${f.name}]`;
    blocks.push([head, f.text, ...(f.note ? [f.note] : [])].join('\n'));
  }
  return blocks.join('\n\n');
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
  /** Characters the model's context leaves for the files (images first, then the documents in order). */
  budgetChars: number;
  describe: (dataUrl: string, item: LibraryRow) => Promise<string>;
  notify: (notice: Omit<Notice, 'id'>) => void;
}

function imageFile(row: LibraryRow, text?: string): MessageFile {
  return { libraryId: row.id, name: row.name, type: 'image', sizeBytes: row.sizeBytes ?? 0, thumbId: row.thumbId ?? row.fileId, ...(text === undefined ? {} : { text }) };
}

/** Images: inline parts for a vision model, else described. Returns the parts and the image files, in order. */
async function attachImages(o: AttachStepOptions, images: readonly AttachmentInput[]): Promise<{ parts: ChatPart[]; files: MessageFile[]; chars: number }> {
  const url = ({ row, blob }: AttachmentInput) => blobToDataUrl(blob as Blob, row.mimeType || 'image/jpeg');
  try {
    if (o.vision) {
      const parts: ChatPart[] = [];
      for (const image of images) parts.push({ type: 'image_url', image_url: { url: await url(image) } });
      return { parts, files: images.map((i) => imageFile(i.row)), chars: images.length * IMAGE_CHARS };
    }
    const files: MessageFile[] = [];
    let failed = false;
    let chars = 0;
    for (const image of images) {
      const dataUrl = await url(image);
      let description: string;
      try {
        description = (await o.describe(dataUrl, image.row)).trim() || IMAGE_DESCRIPTION.notDescribed;
      } catch {
        failed = true;
        description = IMAGE_DESCRIPTION.notDescribed;
      }
      files.push(imageFile(image.row, description));
      chars += description.length + image.row.name.length + 10;
    }
    if (failed) o.notify({ title: IMAGE_DESCRIPTION.failedTitle, text: IMAGE_DESCRIPTION.notDescribed, tone: 'orange', durationMs: 5_000 });
    return { parts: [], files, chars };
  } catch {
    // The images could not be read at all: the message goes without them (spec 000 section 8).
    o.notify({ title: IMAGE_DESCRIPTION.processingErrorTitle, text: IMAGE_DESCRIPTION.processingErrorText, tone: 'orange', durationMs: 5_000 });
    return { parts: [], files: images.map((i) => imageFile(i.row)), chars: 0 };
  }
}

export async function buildAttachedPrompt(o: AttachStepOptions): Promise<AttachedPrompt> {
  const ready = o.items.filter((i) => i.row.status === 'completed');
  const images = await attachImages(o, ready.filter((i) => i.row.type === 'image' && i.blob !== null));
  const byId = new Map(images.files.map((f) => [f.libraryId, f]));
  const files: MessageFile[] = [];
  const cut: AttachedPrompt['cut'] = [];
  let budget = o.budgetChars - images.chars;
  for (const { row } of ready) {
    const image = byId.get(row.id);
    if (image) files.push(image);
    if (row.type !== 'file') continue;
    const text = row.content.join('\n\n');
    const doc = documentFile(row, text, Math.max(0, budget - row.name.length - 10));
    budget -= (doc.file.text ?? '').length + row.name.length + 10;
    files.push(doc.file);
    if (doc.cut) cut.push(doc.cut);
  }
  const prompt: string | ChatPart[] = images.parts.length > 0 ? [{ type: 'text', text: o.prompt }, ...images.parts] : o.prompt;
  return { prompt, files, libraryIds: ready.map((i) => i.row.id), cut };
}
