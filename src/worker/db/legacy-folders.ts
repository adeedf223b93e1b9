/**
 * Folders of a database from before their events (the original app's schema v42 tables `folders` and
 * `conversationFolders`), as events: adopted into the log once, before the folders projection first rebuilds, so
 * nothing is lost (src/worker/log.ts ensureProjectionsCurrent). A name is trimmed to the allowed length; a folder
 * without a usable id or name, and a link to a missing folder, are skipped; of several links of one conversation
 * the last (highest id) wins, as the spec keeps one folder per conversation.
 */
import { makeEvent, type NewEvent } from '../../events/catalogue';
import { FOLDER_NAME_MAX } from '../../events/account-events';
import { normalizeTimestamp, type ConversationFolderRow, type FolderRow } from '../../events/model';

export const LEGACY_FOLDERS_KEY = 'log:legacy-folders-adopted';

export function legacyFolderEvents(folders: readonly Partial<FolderRow>[], links: readonly Partial<ConversationFolderRow>[]): NewEvent[] {
  const out: NewEvent[] = [];
  const kept = new Set<number>();
  for (const f of folders) {
    const name = typeof f.name === 'string' ? f.name.trim().slice(0, FOLDER_NAME_MAX) : '';
    if (!Number.isSafeInteger(f.id) || name === '') continue;
    const createdAt = typeof f.createdAt === 'number' && Number.isFinite(f.createdAt) ? normalizeTimestamp(f.createdAt) : 0;
    const updatedAt = typeof f.updatedAt === 'number' && Number.isFinite(f.updatedAt) ? normalizeTimestamp(f.updatedAt) : createdAt;
    const folder: FolderRow = { id: f.id!, name, createdAt, updatedAt, parentId: Number.isSafeInteger(f.parentId) ? f.parentId! : null };
    kept.add(folder.id);
    out.push(makeEvent('folder.created', { folder }, `legacy:folder:${folder.id}`, createdAt));
  }
  const last = new Map<number, Partial<ConversationFolderRow>>();
  for (const l of [...links].sort((a, b) => (a.id ?? 0) - (b.id ?? 0))) {
    if (Number.isSafeInteger(l.conversationId) && Number.isSafeInteger(l.folderId) && kept.has(l.folderId!)) last.set(l.conversationId!, l);
  }
  for (const [conversationId, l] of last) {
    out.push(makeEvent('conversation.movedToFolder', { conversationIds: [conversationId], folderId: l.folderId!, at: 0 }, `legacy:folder-link:${l.id ?? conversationId}`, 0));
  }
  return out;
}
