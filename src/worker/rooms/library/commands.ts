/**
 * The library room (spec 000 sections 3, 4 and 5; spec 001 section 5): adding files and pasted text, attaching
 * and detaching them on a conversation's composer, reuse, delete. Files are validated here from their name, size
 * and first bytes (nothing is read whole before it is accepted), stored as Blobs in `files`, and read by
 * rooms/library/jobs.ts. A conversation's composer attachments are its library links not yet sent with a
 * message (`libraryConversations`, conversation id 0 = a new conversation), so they survive a reload.
 */
import { makeEvent } from '../../../events/catalogue';
import type { LibraryRow } from '../../../events/model';
import { baseName, fileExtension, formatFileSize, IMAGE_DESCRIPTION, IMAGE_EXTENSIONS, IMAGE_UPLOAD, SERVER_MAX_FILE_SIZE, UPLOAD } from '../../../protocol/attachments';
import type { ActionResult } from '../../../protocol/engine';
import type { AddFileResult, LibraryFile, LibraryHandlers } from '../../../protocol/library';
import type { EngineCore } from '../../core';
import { analyseFile } from './attachments/analyser';
import { kindMatchesExtension, sniffImage } from './attachments/image-sniff';
import { attachmentCalls } from './gateway-calls';
import { LIBRARY_JOBS, type LibraryJobs, UPLOAD_ERROR_MS } from './jobs';
import { migrateInlineImages } from './migration';
import { libraryAttachmentStep } from './submit-attachments';
import { draftLinks } from './queries';
import { registerAttachmentStep } from '../replies/submit-plugins';
import { libraryFileKey } from '../../../projections/library';

/** SHA-256 of a file's bytes, hex (crypto.subtle in the engine worker: the page never reads the file). */
export async function sha256Hex(file: Blob): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

const IMAGE_EXT = new Set<string>(IMAGE_EXTENSIONS);
/** Image formats a browser shows but the image upload does not accept (refused with 'Unsupported image format'). */
const NOT_ACCEPTED_IMAGE_EXT = new Set(['gif', 'svg', 'heic', 'heif', 'avif', 'ico']);

/** The conversation id a slug's composer links use (0 for a new conversation), or null when the slug is unknown. */
export async function composerConversationId(core: EngineCore, slug: string | null): Promise<number | null> {
  if (slug === null) return 0;
  const conversation = await core.db.conversations.where('slug').equals(slug).first();
  return conversation && conversation.deletedAt === undefined ? conversation.id : null;
}

export function libraryCommands(core: EngineCore, jobs: LibraryJobs = core.room(LIBRARY_JOBS)): LibraryHandlers {
  // Step 3 of the submit flow: what a message's attachments send (rooms/library/submit-attachments.ts).
  registerAttachmentStep(core, libraryAttachmentStep);
  void core.whenStarted().then(async () => {
    if (!core.storageOk) return;
    await jobs.resume();
    await migrateInlineImages(core).catch((error: unknown) => {
      if (!core.ended) console.warn('Inline image migration stopped; it resumes at the next start', error);
    });
  });

  const refuse = (title: string, error: string, ext: string, size: number): AddFileResult => {
    core.notify({ title, text: error, tone: 'red', durationMs: UPLOAD_ERROR_MS });
    attachmentCalls.reportUnsupported(ext, size);
    return { ok: false, title, error };
  };

  async function attachLibraryItem(id: number, slug: string | null): Promise<ActionResult> {
    await core.whenStarted();
    const item = await core.db.library.get(id);
    if (!item) return { ok: false, error: 'This file is no longer in the library' };
    const conversationId = await composerConversationId(core, slug);
    if (conversationId === null) return { ok: false, error: 'Conversation not found' };
    if ((await draftLinks(core, conversationId, slug)).some((d) => d.item.id === id)) return { ok: true };
    const now = Date.now();
    await core.append([makeEvent('library.itemLinked', { link: { id: core.ids.next(now), libraryId: id, conversationId }, at: now }, crypto.randomUUID(), now)]);
    return { ok: true };
  }

  async function addFile(input: { name: string; file: Blob; slug: string | null; attach?: boolean }): Promise<AddFileResult> {
    await core.whenStarted();
    if (!core.storageOk) return { ok: false, title: 'Local storage unavailable', error: 'Local storage unavailable' };
    const name = baseName(input.name);
    const file = input.file;
    const ext = fileExtension(name);
    const conversationId = await composerConversationId(core, input.slug);
    if (conversationId === null) return { ok: false, title: UPLOAD.errorTitle, error: 'Conversation not found' };
    // Attachments are unique per message: the same file twice on one composer is one attachment.
    const attach = input.attach !== false;
    for (const d of attach ? await draftLinks(core, conversationId, input.slug) : []) {
      if (d.item.name === name && (d.item.originalSize ?? d.item.sizeBytes) === file.size) return { ok: true, id: d.item.id, name };
    }
    if (file.size > SERVER_MAX_FILE_SIZE) return refuse(UPLOAD.errorTitle, UPLOAD.sizeUnsupported(formatFileSize(file.size)), ext, file.size);
    // An image is anything named or typed as one: a GIF (or SVG, HEIC...) is an image the upload does not take
    // (spec 000 section 5: jpg, jpeg, png, webp, bmp, tiff, tif), refused as such, never read as a text document.
    const isImage = IMAGE_EXT.has(ext) || NOT_ACCEPTED_IMAGE_EXT.has(ext) || file.type.startsWith('image/');
    const analysis = analyseFile({ name, size: file.size, type: file.type });
    let processing: LibraryRow['processing'];
    if (isImage) {
      if (!IMAGE_EXT.has(ext)) return refuse(IMAGE_UPLOAD.unsupportedFormatTitle, IMAGE_UPLOAD.unsupportedFormatText, ext, file.size);
      if (!file.type.startsWith('image/')) return refuse(IMAGE_UPLOAD.uploadErrorTitle, IMAGE_UPLOAD.notAnImage, ext, file.size);
      const kind = sniffImage(new Uint8Array(await file.slice(0, 32).arrayBuffer()));
      if (kind === null || !kindMatchesExtension(kind, ext)) {
        return refuse(IMAGE_UPLOAD.unsupportedFormatTitle, IMAGE_UPLOAD.unsupportedFormatText, ext, file.size);
      }
      processing = 'image';
    } else {
      if (!analysis.isSupported) return refuse(UPLOAD.errorTitle, UPLOAD.unsupportedFile(analysis.reasons), ext, file.size);
      // Spec 000 section 5: .docx in the browser with server fallback; .doc needs the server; the rest as analysed.
      processing = ext === 'docx' && file.size <= 10 * 1024 * 1024 ? 'client' : analysis.recommendedProcessing;
    }
    // One library row per identical file (issue 16): the same bytes again reuse the row (attached to this composer).
    let contentHash: string;
    try {
      contentHash = await sha256Hex(file);
    } catch {
      return refuse(UPLOAD.errorTitle, UPLOAD.analysisFailed, ext, file.size);
    }
    const same = await core.db.library.filter((r) => r.contentHash === contentHash && r.status !== 'error').first();
    if (same) {
      if (attach) {
        const r = await attachLibraryItem(same.id, input.slug);
        if (!r.ok) return { ok: false, title: UPLOAD.errorTitle, error: r.error };
      } else core.notify({ title: 'Already in the library', text: same.name, tone: 'blue', durationMs: 3_000 });
      return { ok: true, id: same.id, name: same.name };
    }
    const now = Date.now();
    const fileId = core.ids.next(now);
    const id = core.ids.next(now);
    const order = (await core.db.library.count()) + 1;
    const item: LibraryRow = {
      id,
      createdAt: now,
      lastModified: now,
      fileId,
      name,
      content: [],
      processingTime: 0,
      type: isImage ? 'image' : 'file',
      status: 'not started',
      order,
      fileType: ext,
      sizeBytes: file.size,
      analysis,
      conversationId: conversationId === 0 ? null : conversationId,
      processedLocally: processing !== 'server',
      mimeType: file.type,
      progress: null,
      processing,
      originalSize: file.size,
      contentHash,
    };
    try {
      // The bytes first: an item whose append then fails leaves an orphan Blob, swept at the next start.
      await core.db.files.put({ id: fileId, file });
      await core.append([
        makeEvent('library.itemAdded', { item }, crypto.randomUUID(), now),
        ...(attach ? [makeEvent('library.itemLinked', { link: { id: core.ids.next(now), libraryId: id, conversationId }, at: now }, crypto.randomUUID(), now)] : []),
      ]);
    } catch {
      // Spec 000 section 8: 'Error adding image' ('Failed to add image. Please try again.').
      if (isImage) return refuse(IMAGE_DESCRIPTION.addErrorTitle, IMAGE_DESCRIPTION.addErrorText, ext, file.size);
      return { ok: false, title: 'Local storage unavailable', error: 'Local storage unavailable' };
    }
    jobs.start(item);
    return { ok: true, id, name };
  }

  return {
    addFile,

    async addPastedText(text: string, slug: string | null): Promise<AddFileResult> {
      await core.whenStarted();
      const pasted = await core.db.library.filter((r) => r.name.startsWith('Pasted text ')).count();
      return addFile({ name: UPLOAD.pastedTextName(pasted + 1), file: new Blob([text], { type: 'text/plain' }), slug });
    },

    async removeAttachment(slug: string | null, id: number): Promise<ActionResult> {
      await core.whenStarted();
      const conversationId = await composerConversationId(core, slug);
      if (conversationId === null) return { ok: false, error: 'Conversation not found' };
      const draft = (await draftLinks(core, conversationId, slug)).find((d) => d.item.id === id);
      if (!draft) return { ok: false, error: 'This file is not attached' };
      const now = Date.now();
      await core.append([makeEvent('library.itemUnlinked', { linkId: draft.linkId, at: now }, crypto.randomUUID(), now)]);
      return { ok: true };
    },

    attachLibraryItem,

    async deleteLibraryItem(id: number): Promise<ActionResult> {
      await core.whenStarted();
      const item = await core.db.library.get(id);
      if (!item) return { ok: false, error: 'This file is no longer in the library' };
      // The library shows one row per identical file: deleting it deletes every row of that file.
      const key = libraryFileKey(item);
      const rows = await core.db.library.filter((r) => libraryFileKey(r) === key).toArray();
      for (const r of rows) jobs.cancel(r.id);
      const now = Date.now();
      await core.append(rows.map((r) => makeEvent('library.itemDeleted', { id: r.id, at: now }, crypto.randomUUID(), now)));
      await core.db.files.bulkDelete(rows.flatMap((r) => (r.thumbId === undefined ? [r.fileId] : [r.fileId, r.thumbId]))).catch(() => undefined);
      return { ok: true };
    },

    async libraryFile(id: number): Promise<LibraryFile> {
      await core.whenStarted();
      const item = await core.db.library.get(id);
      const row = item ? await core.db.files.get(item.fileId) : undefined;
      if (!item || !row) return { ok: false, error: 'This file is no longer in the library' };
      const mimeType = item.mimeType || 'application/octet-stream';
      const file = row.file instanceof Blob ? row.file : new Blob([row.file], { type: mimeType });
      return { ok: true, name: item.name, mimeType, file };
    },
  };
}
