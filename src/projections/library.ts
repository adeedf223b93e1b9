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
import type { ProjectedEvent, Projection } from './projection';
import { deleteWhere, put, remove, update } from './writes';
import type { Write } from './writes';

const NONE: Write[] = [];

/** Statuses an item never leaves by a progress event. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'error']);

export const libraryProjection: Projection = {
  name: 'library',
  version: 1,
  tables: ['library', 'libraryConversations', 'messageLibrary'],
  apply(event: ProjectedEvent): Write[] {
    switch (event.type) {
      case 'library.itemAdded':
        return [put('library', event.payload.item)];
      case 'library.itemProgressed': {
        const p = event.payload;
        // Pure: the projection cannot read the row, so the "final" rule is kept by the commands that append
        // (src/worker/services/library/jobs.ts checks the row first). Here the event says what happened.
        return [update('library', p.id, { status: p.status, progress: p.progress, lastModified: p.at, ...(p.jobId ? { jobId: p.jobId } : {}) })];
      }
      case 'library.itemCompleted': {
        const p = event.payload;
        const media = { ...(p.mimeType !== undefined ? { mimeType: p.mimeType } : {}), ...(p.sizeBytes !== undefined ? { sizeBytes: p.sizeBytes } : {}) };
        return [update('library', p.id, { status: 'completed', content: p.content, processingTime: p.processingTime, processedLocally: p.processedLocally, progress: 1, error: undefined, lastModified: p.at, ...media })];
      }
      case 'library.itemFailed':
        return [update('library', event.payload.id, { status: 'error', error: event.payload.error, progress: null, lastModified: event.payload.at })];
      case 'library.itemDeleted': {
        const id = event.payload.id;
        return [remove('library', id), deleteWhere('libraryConversations', 'libraryId', id), deleteWhere('messageLibrary', 'libraryId', id)];
      }
      case 'library.itemLinked':
        return [put('libraryConversations', event.payload.link)];
      case 'library.itemUnlinked':
        return [remove('libraryConversations', event.payload.linkId)];
      case 'library.messageLinked':
        return event.payload.links.map((l) => put('messageLibrary', l));
      case 'conversation.duplicated':
        return event.payload.libraryLinks.map((l) => put('messageLibrary', l));
      case 'message.deleted':
        return event.payload.messageIds.map((id) => deleteWhere('messageLibrary', 'messageId', id));
      default:
        return NONE;
    }
  },
};
