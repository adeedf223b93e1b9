/**
 * Read model of the library (spec 000 sections 3 and 4): `library` (items with their status, progress and text),
 * `libraryConversations` (which conversations an item is attached to) and `messageLibrary` (which messages carry
 * it). The file bytes are in `files`, written by the engine beside `library.itemAdded` (not a projection's table:
 * a Blob is no event payload).
 *
 * Status transitions (src/protocol/attachments.ts LIBRARY_STATUSES): added as 'not started', 'uploading',
 * 'processing' or 'completed'; `itemProgressed` sets status and progress; `itemCompleted` -> 'completed' with the
 * text; `itemFailed` -> 'error' with the message. A completed or failed item is final: a late progress event (an
 * engine that took over while the first still ran) never moves it back.
 */
import { defineProjection } from './projection';
import { deleteWhere, put, remove, update } from './writes';

/** Statuses an item never leaves by a progress event. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'error']);

export const libraryProjection = defineProjection({
  name: 'library',
  version: 1,
  tables: ['library', 'libraryConversations', 'messageLibrary'],
  materializers: {
    'library.itemAdded': (p) => [put('library', p.item)],
    // Pure: the projection cannot read the row, so the "final" rule is kept by the commands that append
    // (src/worker/rooms/library/jobs.ts checks the row first). Here the event says what happened.
    'library.itemProgressed': (p) => [update('library', p.id, { status: p.status, progress: p.progress, lastModified: p.at, ...(p.jobId ? { jobId: p.jobId } : {}) })],
    'library.itemCompleted': (p) => {
      const media = { ...(p.mimeType !== undefined ? { mimeType: p.mimeType } : {}), ...(p.sizeBytes !== undefined ? { sizeBytes: p.sizeBytes } : {}) };
      return [update('library', p.id, { status: 'completed', content: p.content, processingTime: p.processingTime, processedLocally: p.processedLocally, progress: 1, error: undefined, lastModified: p.at, ...media })];
    },
    'library.itemFailed': (p) => [update('library', p.id, { status: 'error', error: p.error, progress: null, lastModified: p.at })],
    'library.itemDeleted': ({ id }) => [remove('library', id), deleteWhere('libraryConversations', 'libraryId', id), deleteWhere('messageLibrary', 'libraryId', id)],
    'library.itemLinked': (p) => [put('libraryConversations', p.link)],
    'library.itemUnlinked': (p) => [remove('libraryConversations', p.linkId)],
    'library.messageLinked': (p) => p.links.map((l) => put('messageLibrary', l)),
    'conversation.duplicated': (p) => p.libraryLinks.map((l) => put('messageLibrary', l)),
    'message.deleted': (p) => p.messageIds.map((id) => deleteWhere('messageLibrary', 'messageId', id)),
    'message.restored': (p) => p.libraryLinks.map((l) => put('messageLibrary', l)),
  },
});
