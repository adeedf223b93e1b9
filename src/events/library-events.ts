/**
 * Events of the library and attachments (issue 7; spec 000 sections 3 and 4): a file's whole life is in the log,
 * so an upload in progress survives a reload and a leader hand-off (the engine that starts next finds it
 * 'uploading' or 'processing' in the read model and carries on). The file's bytes are not in the log: they are a
 * Blob in the `files` table under `item.fileId`, written just before `library.itemAdded` (docs/events.md).
 * Each is declared once in `libraryEvents` below (./define.ts); the catalogue (./catalogue.ts) joins it.
 */
import type { ImageRef, LibraryConversationRow, LibraryRow, MessageLibraryRow } from './model';
import { LIBRARY_STATUSES } from '../protocol/attachments';
import type { LibraryStatus } from '../protocol/attachments';
import { I, N, O, S } from './checks';
import type { R } from './checks';
import { defineEvent, NOTHING, page, tested } from './define';

/** A file was added to the library (status 'uploading', 'processing', or 'completed' for a ready image). */
export interface LibraryItemAddedV1 {
  item: LibraryRow;
}
/** Its status or progress changed while it is read (progress 0 to 1, null when unknown); `jobId`: server job. */
export interface LibraryProgressedV1 {
  id: number;
  status: LibraryStatus;
  progress: number | null;
  jobId?: string;
  at: number;
}
/** Its text was read (`content`, a list of text; empty for an image): status 'completed'. */
export interface LibraryCompletedV1 {
  id: number;
  content: string[];
  processingTime: number;
  processedLocally: boolean;
  at: number;
  /** An image that was compressed or converted: its stored type and size now. */
  mimeType?: string;
  sizeBytes?: number;
  /** An image's thumbnail (a Blob in `files`, made in the file worker); absent when the image is its own. */
  thumbId?: number;
}
/** It was taken off a conversation's composer before being sent (the link row goes; the item stays). */
export interface LibraryItemUnlinkedV1 {
  linkId: number;
  at: number;
}
/** It could not be read: status 'error' with the spec's message. */
export interface LibraryFailedV1 {
  id: number;
  error: string;
  at: number;
}
/** It was deleted, with its links to messages and conversations. */
export interface LibraryItemDeletedV1 {
  id: number;
  at: number;
}
/** It was attached to a conversation (the first one, or reused in another). */
export interface LibraryItemLinkedV1 {
  link: LibraryConversationRow;
  at: number;
}
/** A sent message carries these library items (messageLibrary rows). */
export interface LibraryMessageLinkedV1 {
  conversationSlug: string;
  links: MessageLibraryRow[];
  at: number;
}
/**
 * The background migration (spec 000 section 4) moved the inline images of an old assistant message into its
 * `images` field (their bytes written to `files` first, as media's are): `prompt` is the text without them.
 */
export interface MessageImagesExtractedV1 {
  conversationSlug: string;
  messageId: number;
  prompt: string;
  images: ImageRef[];
  at: number;
}

// ---- the declarations (a rejected payload gets the general "payload is not a valid 'x'") ----

const STATUS = new Set<string>(LIBRARY_STATUSES);
const item = (v: unknown): boolean =>
  O(v) && I(v.id) && I(v.fileId) && S(v.name) && N(v.createdAt) && N(v.lastModified) && Array.isArray(v.content) && v.content.every(S) &&
  (v.type === 'image' || v.type === 'file') && S(v.status) && STATUS.has(v.status as string) && N(v.order) && N(v.processingTime) &&
  (v.contentHash === undefined || S(v.contentHash));
const link = (v: unknown): boolean => O(v) && I(v.id) && I(v.libraryId);

// The library queries follow library events themselves (src/worker/rooms/library/queries.ts).
export const libraryEvents = {
  /**
   * Status 'not started' until its job starts (an item from an import or a migration may carry 'uploading',
   * 'processing' or 'completed'); its bytes are a Blob in `files` under `item.fileId`, written just before.
   */
  'library.itemAdded': defineEvent({
    version: 1,
    payload: tested<LibraryItemAddedV1>((p) => O(p) && item(p.item)),
    touches: () => NOTHING,
  }),
  'library.itemProgressed': defineEvent({
    version: 1,
    payload: tested<LibraryProgressedV1>((p) => O(p) && I(p.id) && S(p.status) && STATUS.has(p.status as string) && (p.progress === null || N(p.progress)) && N(p.at)),
    touches: () => NOTHING,
  }),
  'library.itemCompleted': defineEvent({
    version: 1,
    payload: tested<LibraryCompletedV1>((p) => O(p) && I(p.id) && Array.isArray(p.content) && p.content.every(S) && N(p.processingTime) && typeof p.processedLocally === 'boolean' && N(p.at) && (p.thumbId === undefined || I(p.thumbId))),
    touches: () => NOTHING,
  }),
  'library.itemFailed': defineEvent({
    version: 1,
    payload: tested<LibraryFailedV1>((p) => O(p) && I(p.id) && S(p.error) && N(p.at)),
    touches: () => NOTHING,
  }),
  'library.itemDeleted': defineEvent({
    version: 1,
    payload: tested<LibraryItemDeletedV1>((p) => O(p) && I(p.id) && N(p.at)),
    touches: () => NOTHING,
  }),
  /** Conversation id 0 = a new conversation. */
  'library.itemLinked': defineEvent({
    version: 1,
    payload: tested<LibraryItemLinkedV1>((p) => O(p) && link(p.link) && I((p.link as R).conversationId) && N(p.at)),
    touches: () => NOTHING,
  }),
  'library.messageLinked': defineEvent({
    version: 1,
    payload: tested<LibraryMessageLinkedV1>((p) => O(p) && S(p.conversationSlug) && Array.isArray(p.links) && p.links.every((l) => link(l) && I((l as R).messageId)) && N(p.at)),
    touches: (p) => page(p.conversationSlug),
  }),
  'library.itemUnlinked': defineEvent({
    version: 1,
    payload: tested<LibraryItemUnlinkedV1>((p) => O(p) && I(p.linkId) && N(p.at)),
    touches: () => NOTHING,
  }),
  'message.imagesExtracted': defineEvent({
    version: 1,
    payload: tested<MessageImagesExtractedV1>(
      (p) =>
        O(p) && S(p.conversationSlug) && I(p.messageId) && S(p.prompt) && Array.isArray(p.images) &&
        p.images.every((i) => O(i) && I(i.fileId) && I(i.thumbId) && S(i.mimeType) && I(i.width) && I(i.height) && I(i.bytes)) && N(p.at),
    ),
    touches: (p) => page(p.conversationSlug),
  }),
};
