/**
 * Folders (spec 001 sections 3 and 4): nested by parentId (schema v42), created, renamed, deleted with the folders
 * nested in it; conversations moved to a folder one at a time or many at once, or out of any folder. All engine data
 * in the log (`folder.*`, `conversation.movedToFolder`, folded by src/projections/folders.ts), so they survive a
 * reload and reach every tab. The spec's in-memory mapping and its version counter are the `folders` and
 * `conversations` live queries here: a move is one append, and every tab's list follows it.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import { FOLDER_NAME_MAX } from '../../../events/account-events';
import type { FolderRow } from '../../../events/model';
import type { FolderHandlers } from '../../../protocol/account';
import type { ActionResult } from '../../../protocol/engine';
import type { EngineCore } from '../../core';

/** Deepest nesting allowed (a folder at the top is level 1): deep enough for any real filing, shallow enough to show. */
export const FOLDER_MAX_DEPTH = 6;
/** Most conversations one bulk move takes (the list shows a few hundred at most). */
export const BULK_MOVE_MAX = 5000;

// Our own wording (the spec shows none for folders).
export const FOLDER_ERROR = {
  name: `A folder name needs 1 to ${FOLDER_NAME_MAX} characters`,
  notFound: 'Folder not found',
  parentNotFound: 'The folder to put it in no longer exists',
  tooDeep: `Folders nest at most ${FOLDER_MAX_DEPTH} levels deep`,
  noConversations: 'Choose at least one conversation to move',
  tooMany: `At most ${BULK_MOVE_MAX} conversations can be moved at once`,
  conversationNotFound: 'Conversation not found',
  storage: 'Local storage unavailable',
} as const;

/** The folder and every folder nested in it, the folder first. */
export function subtreeOf(folders: readonly FolderRow[], id: number): number[] {
  const children = new Map<number, number[]>();
  for (const f of folders) {
    if (f.parentId === null) continue;
    const list = children.get(f.parentId) ?? [];
    list.push(f.id);
    children.set(f.parentId, list);
  }
  const out: number[] = [];
  const stack = [id];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const next = stack.pop() as number;
    if (seen.has(next)) continue; // a cycle in adopted data must not loop forever
    seen.add(next);
    out.push(next);
    for (const c of children.get(next) ?? []) stack.push(c);
  }
  return out;
}

/** Level of a folder (1 at the top), following parents; a missing parent ends the walk. */
export function depthOf(folders: ReadonlyMap<number, FolderRow>, id: number): number {
  let depth = 0;
  let at: number | null = id;
  const seen = new Set<number>();
  while (at !== null && !seen.has(at)) {
    seen.add(at);
    const row = folders.get(at);
    if (!row) break;
    depth++;
    at = row.parentId;
  }
  return depth;
}

function cleanName(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const trimmed = name.trim().replace(/\s+/g, ' ');
  return trimmed === '' || trimmed.length > FOLDER_NAME_MAX ? null : trimmed;
}

export function folderCommands(core: EngineCore): FolderHandlers {
  async function append(events: NewEvent[]): Promise<ActionResult> {
    try {
      await core.append(events);
      return { ok: true };
    } catch {
      return { ok: false, error: FOLDER_ERROR.storage };
    }
  }

  return {
    async createFolder(name, parentId) {
      const clean = cleanName(name);
      if (clean === null) return { ok: false, error: FOLDER_ERROR.name };
      await core.whenStarted();
      if (parentId !== null) {
        if (!Number.isSafeInteger(parentId)) return { ok: false, error: FOLDER_ERROR.parentNotFound };
        const all = new Map((await core.db.folders.toArray()).map((f) => [f.id, f]));
        if (!all.has(parentId)) return { ok: false, error: FOLDER_ERROR.parentNotFound };
        if (depthOf(all, parentId) >= FOLDER_MAX_DEPTH) return { ok: false, error: FOLDER_ERROR.tooDeep };
      }
      const now = Date.now();
      const folder: FolderRow = { id: core.ids.next(now), name: clean, createdAt: now, updatedAt: now, parentId };
      const result = await append([makeEvent('folder.created', { folder }, crypto.randomUUID(), now)]);
      return result.ok ? { ok: true, id: folder.id } : result;
    },

    async renameFolder(id, name) {
      const clean = cleanName(name);
      if (clean === null) return { ok: false, error: FOLDER_ERROR.name };
      await core.whenStarted();
      const row = await core.db.folders.get(id);
      if (!row) return { ok: false, error: FOLDER_ERROR.notFound };
      if (row.name === clean) return { ok: true };
      const now = Date.now();
      return append([makeEvent('folder.renamed', { id, name: clean, at: now }, crypto.randomUUID(), now)]);
    },

    async deleteFolder(id) {
      await core.whenStarted();
      const folders = await core.db.folders.toArray();
      if (!folders.some((f) => f.id === id)) return { ok: false, error: FOLDER_ERROR.notFound };
      const now = Date.now();
      return append([makeEvent('folder.deleted', { id, folderIds: subtreeOf(folders, id), at: now }, crypto.randomUUID(), now)]);
    },

    async moveConversationsToFolder(conversationIds, folderId) {
      if (!Array.isArray(conversationIds) || conversationIds.length === 0) return { ok: false, error: FOLDER_ERROR.noConversations };
      if (conversationIds.length > BULK_MOVE_MAX) return { ok: false, error: FOLDER_ERROR.tooMany };
      const ids = [...new Set(conversationIds)];
      if (!ids.every((id) => Number.isSafeInteger(id))) return { ok: false, error: FOLDER_ERROR.conversationNotFound };
      await core.whenStarted();
      if (folderId !== null && !(await core.db.folders.get(folderId))) return { ok: false, error: FOLDER_ERROR.notFound };
      const rows = await core.db.conversations.bulkGet(ids);
      if (rows.some((r) => r === undefined || r.deletedAt !== undefined)) return { ok: false, error: FOLDER_ERROR.conversationNotFound };
      // Only the conversations whose folder really changes are logged.
      const links = await core.db.conversationFolders.where('conversationId').anyOf(ids).toArray();
      const current = new Map(links.map((l) => [l.conversationId, l.folderId]));
      const moving = ids.filter((id) => (current.get(id) ?? null) !== folderId);
      if (moving.length === 0) return { ok: true };
      const now = Date.now();
      return append([makeEvent('conversation.movedToFolder', { conversationIds: moving, folderId, at: now }, crypto.randomUUID(), now)]);
    },
  };
}
