/**
 * Events of the library and attachments (issue 7; spec 000 sections 3 and 4): a file's whole life is in the log,
 * so an upload in progress survives a reload and a leader hand-off (the engine that starts next finds it
 * 'uploading' or 'processing' in the read model and carries on). The file's bytes are not in the log: they are a
 * Blob in the `files` table under `item.fileId`, written just before `library.itemAdded` (docs/events.md).
 */
import type { ImageRef, LibraryConversationRow, LibraryRow, MessageLibraryRow } from './model';
import type { LibraryStatus } from '../protocol/attachments';

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
