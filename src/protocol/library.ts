/** The library room's part of the engine interface (src/worker/rooms/library/commands.ts, src/worker/rooms/library/queries.ts). */
import type { LibraryStatus } from './attachments';
import type { ActionResult } from './engine';

/** A library item as the view shows it (a chip, a row of the library page). */
export interface LibraryItemView {
  id: number;
  name: string;
  type: 'image' | 'file';
  /** Extension, lower case ('pdf', 'jpg'). */
  fileType: string;
  mimeType: string;
  sizeBytes: number;
  status: LibraryStatus;
  /** 0 to 1 while it is read; null when unknown. */
  progress: number | null;
  /** The spec's message when status is 'error'. */
  error: string | null;
  createdAt: number;
  lastModified: number;
  /** Seconds (spec: processingTime). */
  processingTime: number;
  processedLocally: boolean;
  /** Characters of text read (0 for an image). */
  textChars: number;
  /** The first characters of its text. */
  preview: string;
  /** Conversations it is attached to (slugs). */
  conversations: string[];
  /** Sent messages that carry it (every row of this file, de-duplicated: issue 16). */
  messageCount: number;
  /** The file to show as its thumbnail (an image once prepared: its small copy, or the image itself); null otherwise. */
  thumbFileId: number | null;
}

export interface LibraryPageView {
  items: LibraryItemView[];
  /** Items matching the search. */
  total: number;
  page: number;
  pageSize: number;
}

export interface LibraryQueries {
  /** The library page: newest first, `pageSize` a page (spec 000 section 9: supplied by the caller), searched by name. */
  library: { query: { kind: 'library'; page: number; pageSize: number; search: string }; result: LibraryPageView };
  /** A conversation's attachments not sent yet (its composer's chips); slug null = a new conversation. */
  attachments: { query: { kind: 'attachments'; slug: string | null }; result: LibraryItemView[] };
}

export type LibraryFile = { ok: true; name: string; mimeType: string; file: Blob } | { ok: false; error: string };

export type AddFileResult = { ok: true; id: number; name: string } | { ok: false; title: string; error: string };

export interface LibraryHandlers {
  /**
   * Adds a file to the library and attaches it to the conversation's composer (slug null = a new conversation):
   * validated, then compressed or read in the engine (images, PDF, DOCX, text) or by the gateway (the analyser's
   * server list). Refusals raise their notice and answer ok false. `attach: false` (the library page) adds it to
   * the library only.
   */
  addFile(input: { name: string; file: Blob; slug: string | null; attach?: boolean }): Promise<AddFileResult>;
  /** Large pasted text becomes a text file ('Pasted text N.txt') when largeTextPasteToFile is on. */
  addPastedText(text: string, slug: string | null): Promise<AddFileResult>;
  /** Takes an attachment off the composer before sending (the library keeps it). */
  removeAttachment(slug: string | null, id: number): Promise<ActionResult>;
  /** Reuses a library item in a conversation: it appears on that conversation's composer. */
  attachLibraryItem(id: number, slug: string | null): Promise<ActionResult>;
  /** Deletes an item, its file and its links. */
  deleteLibraryItem(id: number): Promise<ActionResult>;
  /** The stored file (to preview or download). */
  libraryFile(id: number): Promise<LibraryFile>;
}
