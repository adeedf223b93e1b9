/** Live query of the folders (src/worker/rooms/folders/commands.ts), with how many conversations each holds. */
import { asyncScheduler, defer, filter, from, merge, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { NewEvent } from '../../../events/catalogue';
import type { FolderView } from '../../../protocol/account';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import type { ParleyDB } from '../../db/schema';
import type { QueryHandlers } from '../../query-types';

/** conversation id -> folder id, from the conversationFolders links. */
export async function loadFolderLinks(db: ParleyDB): Promise<Map<number, number>> {
  const links = await db.conversationFolders.toArray();
  return new Map(links.map((l) => [l.conversationId, l.folderId]));
}

function touchesFolders(e: NewEvent): boolean {
  return (
    e.type === 'folder.created' ||
    e.type === 'folder.renamed' ||
    e.type === 'folder.deleted' ||
    e.type === 'conversation.movedToFolder' ||
    // A conversation leaving or coming back changes the counts.
    e.type === 'conversation.deleted' ||
    e.type === 'conversation.restored' ||
    e.type === 'conversation.purged'
  );
}

export function folderQueries(core: EngineCore): Pick<QueryHandlers, 'folders'> {
  async function load(): Promise<FolderView[]> {
    await core.whenStarted();
    if (!core.storageOk) return [];
    const [folders, links, conversations] = await Promise.all([
      core.db.folders.toArray(),
      core.db.conversationFolders.toArray(),
      core.db.conversations.toArray(),
    ]);
    const live = new Set(conversations.filter((c) => c.deletedAt === undefined).map((c) => c.id));
    const counts = new Map<number, number>();
    for (const l of links) if (live.has(l.conversationId)) counts.set(l.folderId, (counts.get(l.folderId) ?? 0) + 1);
    return folders
      .map((f) => ({ id: f.id, name: f.name, parentId: f.parentId ?? null, createdAt: f.createdAt, updatedAt: f.updatedAt, conversations: counts.get(f.id) ?? 0 }))
      .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }) || a.id - b.id);
  }
  return {
    folders: (): Observable<FolderView[]> =>
      merge(core.changes$.pipe(filter((c) => c.all)), core.events$.pipe(filter((events) => events.some(touchesFolders)))).pipe(
        startWith(null),
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        switchMap(() => defer(() => from(load()))),
      ),
  };
}
