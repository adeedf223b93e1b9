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
import type { LibraryRow } from '../events/model';
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
      const media = { ...(p.mimeType !== undefined ? { mimeType: p.mimeType } : {}), ...(p.sizeBytes !== undefined ? { sizeBytes: p.sizeBytes } : {}), ...(p.thumbId !== undefined ? { thumbId: p.thumbId } : {}) };
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

/**
 * One library row per identical file (issue 16). The key of a row: its content hash (SHA-256 of the bytes as added,
 * computed in the engine worker since issue 16), or for a row added before hashes, its type, name and size as added
 * (the bytes of a compressed image are no longer the original's, so they cannot be hashed again).
 */
export function libraryFileKey(row: Pick<LibraryRow, 'contentHash' | 'type' | 'name' | 'originalSize' | 'sizeBytes'>): string {
  return row.contentHash ? `sha256:${row.contentHash}` : `legacy:${row.type}:${row.name}:${row.originalSize ?? row.sizeBytes ?? 0}`;
}

/** One identical file: the row shown (the first added that did not fail) and every row that holds it. */
export interface LibraryFileGroup {
  row: LibraryRow;
  ids: number[];
}

/**
 * De-duplicates the library's rows (pure, over the projected table): a log written before issue 16 (or two tabs
 * adding the same file at once) may hold several rows of one file; they show as one, linked to the messages and
 * conversations of all of them. Groups keep the order of their shown rows in `rows`.
 */
export function dedupeLibraryRows(rows: readonly LibraryRow[]): LibraryFileGroup[] {
  const byKey = new Map<string, LibraryRow[]>();
  for (const row of rows) {
    const key = libraryFileKey(row);
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  const groups: LibraryFileGroup[] = [];
  for (const list of byKey.values()) {
    const ordered = [...list].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
    const shown = ordered.find((r) => r.status !== 'error') ?? (ordered[0] as LibraryRow);
    groups.push({ row: shown, ids: ordered.map((r) => r.id) });
  }
  const position = new Map(rows.map((r, i) => [r.id, i]));
  return groups.sort((a, b) => (position.get(a.row.id) ?? 0) - (position.get(b.row.id) ?? 0));
}
