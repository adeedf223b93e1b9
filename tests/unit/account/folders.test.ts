/**
 * Folders (spec 001 sections 3 and 4): their events (validation), the projection into folders / conversationFolders
 * (pure fold), the engine's commands and live queries on fake-indexeddb, and replay: the exported log folded in Node
 * gives the engine's tables.
 */
import { describe, expect, it } from 'vitest';
import { filter, firstValueFrom } from 'rxjs';
import { decodeLog } from '../../../src/events/codec';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, FolderRow } from '../../../src/events/model';
import { upcast } from '../../../src/events/upcasters';
import { checkPayload } from '../../../src/events/validate';
import { fold } from '../../../src/projections/fold';
import { foldersProjection } from '../../../src/projections/folders';
import { FOLDER_ERROR, FOLDER_MAX_DEPTH, subtreeOf } from '../../../src/worker/rooms/folders/commands';
import type { Engine } from '../../../src/worker/engine';
import { useOfflineEngines } from '../engine/offline-engine';

const T0 = 1_700_000_000_000;
const folder = (id: number, name: string, parentId: number | null = null): FolderRow => ({ id, name, createdAt: T0 + id, updatedAt: T0 + id, parentId });
const created = (f: FolderRow) => makeEvent('folder.created', { folder: f }, `f-${f.id}`, f.createdAt);
const moved = (ids: number[], folderId: number | null, n: number) => makeEvent('conversation.movedToFolder', { conversationIds: ids, folderId, at: T0 + n }, `m-${n}`, T0 + n);

describe('folder events', () => {
  it('validate names, nesting, ids and the moved conversations', () => {
    expect(checkPayload('folder.created', { folder: folder(1, 'Work') })).toBeNull();
    expect(checkPayload('folder.created', { folder: folder(2, 'Child', 1) })).toBeNull();
    expect(checkPayload('folder.created', { folder: { ...folder(1, 'Work'), parentId: undefined } })).toBe('payload.folder.parentId is missing');
    expect(checkPayload('folder.created', { folder: folder(1, '  ') })).toMatch(/^payload\.folder\.name is not a name of 1 to 100 characters/);
    expect(checkPayload('folder.renamed', { id: 1, name: 'x'.repeat(101), at: T0 })).toMatch(/^payload\.name is not/);
    expect(checkPayload('folder.deleted', { id: 1, folderIds: [], at: T0 })).toMatch(/^payload\.folderIds is not a non-empty list/);
    expect(checkPayload('conversation.movedToFolder', { conversationIds: [1, 2], folderId: null, at: T0 })).toBeNull();
    expect(checkPayload('conversation.movedToFolder', { conversationIds: [1.5], folderId: 3, at: T0 })).toMatch(/^payload\.conversationIds/);
    expect(checkPayload('conversation.movedToFolder', { conversationIds: [1], folderId: '3', at: T0 })).toMatch(/^payload\.folderId is not an integer or null/);
  });
});

describe('folders projection', () => {
  it('a move replaces the previous link (one folder per conversation); no folder only removes it', () => {
    const events: NewEvent[] = [created(folder(1, 'A')), created(folder(2, 'B')), moved([10, 11], 1, 1), moved([10], 2, 2)];
    let store = fold(events, [foldersProjection]);
    expect(store.rows('conversationFolders')).toEqual([
      { id: 10, conversationId: 10, folderId: 2 },
      { id: 11, conversationId: 11, folderId: 1 },
    ]);
    store = fold([...events, moved([11], null, 3)], [foldersProjection]);
    expect(store.rows('conversationFolders')).toEqual([{ id: 10, conversationId: 10, folderId: 2 }]);
  });

  it('deleting a folder removes it, the folders listed with it and all their links; renaming stamps updatedAt', () => {
    const events: NewEvent[] = [
      created(folder(1, 'Top')),
      created(folder(2, 'Child', 1)),
      created(folder(3, 'Other')),
      moved([10], 1, 1),
      moved([11], 2, 2),
      moved([12], 3, 3),
      makeEvent('folder.renamed', { id: 3, name: 'Renamed', at: T0 + 9 }, 'r3', T0 + 9),
      makeEvent('folder.deleted', { id: 1, folderIds: [1, 2], at: T0 + 10 }, 'd1', T0 + 10),
    ];
    const store = fold(events, [foldersProjection]);
    expect(store.rows('folders')).toEqual([{ ...folder(3, 'Other'), name: 'Renamed', updatedAt: T0 + 9 }]);
    expect(store.rows('conversationFolders')).toEqual([{ id: 12, conversationId: 12, folderId: 3 }]);
  });

  it('subtreeOf finds every nested folder and survives a cycle in adopted data', () => {
    const rows = [folder(1, 'a'), folder(2, 'b', 1), folder(3, 'c', 2), folder(4, 'd'), folder(5, 'e', 1)];
    expect(subtreeOf(rows, 1).sort()).toEqual([1, 2, 3, 5]);
    expect(subtreeOf(rows, 4)).toEqual([4]);
    expect(subtreeOf([folder(1, 'x', 2), folder(2, 'y', 1)], 1).sort()).toEqual([1, 2]);
  });
});

const newEngine = useOfflineEngines();

function conversationRow(id: number, slug: string): ConversationRow {
  return { id, uuid: `u-${id}`, slug, name: slug, createdAt: T0, updatedAt: T0 + id, latestMessage: '', isMediaOnly: false };
}

async function withConversations(engine: Engine, n: number): Promise<number[]> {
  await engine.whenStarted();
  const rows = Array.from({ length: n }, (_, i) => conversationRow(i + 1, `chat-${i + 1}`));
  await engine.append(rows.map((c) => makeEvent('conversation.created', { conversation: c }, `c-${c.id}`, T0)));
  return rows.map((r) => r.id);
}

const folders = (engine: Engine, test: (f: Awaited<ReturnType<typeof load>>) => boolean = () => true) =>
  firstValueFrom(engine.observe({ kind: 'folders' }).pipe(filter(test)));
const load = async (engine: Engine) => firstValueFrom(engine.observe({ kind: 'folders' }));
const list = (engine: Engine, test: (c: { slug: string; folderId: number | null }[]) => boolean) =>
  firstValueFrom(engine.observe({ kind: 'conversations' }).pipe(filter(test)));

describe('folder commands', () => {
  it('create nested folders, rename, move one and many, delete: the queries follow and a replay agrees', async () => {
    const engine = newEngine('folders-flow');
    const [c1, c2, c3] = (await withConversations(engine, 3)) as [number, number, number];
    const work = await engine.createFolder('  Work  ', null);
    if (!work.ok) throw new Error(work.error);
    const child = await engine.createFolder('Reports', work.id);
    if (!child.ok) throw new Error(child.error);
    expect(await engine.renameFolder(work.id, 'Job')).toEqual({ ok: true });

    expect(await engine.moveConversationsToFolder([c1], work.id)).toEqual({ ok: true });
    expect(await engine.moveConversationsToFolder([c2, c3], child.id)).toEqual({ ok: true });
    // A conversation already there is not moved again: nothing logged.
    const before = (await engine.exportLog()).split('\n').length;
    expect(await engine.moveConversationsToFolder([c1], work.id)).toEqual({ ok: true });
    expect((await engine.exportLog()).split('\n').length).toBe(before);

    const shown = await folders(engine, (f) => f.length === 2 && f.some((x) => x.conversations === 2));
    expect(shown.map((f) => [f.name, f.parentId, f.conversations])).toEqual([
      ['Job', null, 1],
      ['Reports', work.id, 2],
    ]);
    const listed = await list(engine, (c) => c.every((x) => x.folderId !== null));
    expect(Object.fromEntries(listed.map((c) => [c.slug, c.folderId]))).toEqual({ 'chat-1': work.id, 'chat-2': child.id, 'chat-3': child.id });

    // Deleting the top folder takes its subfolder and every link; the conversations stay, in no folder.
    expect(await engine.deleteFolder(work.id)).toEqual({ ok: true });
    expect(await folders(engine, (f) => f.length === 0)).toEqual([]);
    const after = await list(engine, (c) => c.every((x) => x.folderId === null));
    expect(after).toHaveLength(3);

    // Replay: the exported log folded in Node gives the same tables as the engine's.
    const log = decodeLog(await engine.exportLog());
    const store = fold(log.events.map((e) => upcast(e, { validate: true })));
    expect(store.rows('folders')).toEqual(await engine.db.folders.toArray());
    expect(store.rows('conversationFolders')).toEqual(await engine.db.conversationFolders.toArray());
  });

  it('refuse a bad name, a missing parent or folder, too deep a nesting, and unknown conversations', async () => {
    const engine = newEngine('folders-refusals');
    const [c1] = (await withConversations(engine, 1)) as [number];
    expect(await engine.createFolder('', null)).toEqual({ ok: false, error: FOLDER_ERROR.name });
    expect(await engine.createFolder('x'.repeat(101), null)).toEqual({ ok: false, error: FOLDER_ERROR.name });
    expect(await engine.createFolder('Orphan', 999)).toEqual({ ok: false, error: FOLDER_ERROR.parentNotFound });
    let parent: number | null = null;
    for (let level = 1; level <= FOLDER_MAX_DEPTH; level++) {
      const made = await engine.createFolder(`Level ${level}`, parent);
      if (!made.ok) throw new Error(made.error);
      parent = made.id;
    }
    expect(await engine.createFolder('Too deep', parent)).toEqual({ ok: false, error: FOLDER_ERROR.tooDeep });
    expect(await engine.renameFolder(999, 'x')).toEqual({ ok: false, error: FOLDER_ERROR.notFound });
    expect(await engine.deleteFolder(999)).toEqual({ ok: false, error: FOLDER_ERROR.notFound });
    expect(await engine.moveConversationsToFolder([], null)).toEqual({ ok: false, error: FOLDER_ERROR.noConversations });
    expect(await engine.moveConversationsToFolder([c1], 999)).toEqual({ ok: false, error: FOLDER_ERROR.notFound });
    expect(await engine.moveConversationsToFolder([c1, 12345], parent)).toEqual({ ok: false, error: FOLDER_ERROR.conversationNotFound });
    // Nothing was moved by the refused bulk move.
    expect(await engine.db.conversationFolders.count()).toBe(0);
  });
});

describe('folders from before the log', () => {
  it('are adopted into the log once, with their links, before the projection first rebuilds', async () => {
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    const { ParleyDB } = await import('../../../src/worker/db/schema');
    const { ensureProjectionsCurrent, readLog } = await import('../../../src/worker/log');
    const db = new ParleyDB('legacy-folders', { indexedDB: new IDBFactory(), IDBKeyRange });
    await db.open();
    await db.folders.bulkPut([
      { id: 1, name: ' Work ', createdAt: 1_700_000_000, updatedAt: 1_700_000_000, parentId: null },
      { id: 2, name: 'Child', createdAt: 1_700_000_001_000, updatedAt: 1_700_000_001_000 } as FolderRow,
      { id: 3, name: '' } as FolderRow,
    ]);
    await db.conversationFolders.bulkPut([
      { id: 10, conversationId: 5, folderId: 1 },
      { id: 11, conversationId: 5, folderId: 2 },
      { id: 12, conversationId: 6, folderId: 3 },
    ]);
    await ensureProjectionsCurrent(db);
    expect(await db.folders.orderBy(':id').toArray()).toEqual([
      { id: 1, name: 'Work', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000, parentId: null },
      { id: 2, name: 'Child', createdAt: 1_700_000_001_000, updatedAt: 1_700_000_001_000, parentId: null },
    ]);
    // One folder per conversation: the last link wins; a link to a folder that could not be kept goes.
    expect(await db.conversationFolders.toArray()).toEqual([{ id: 5, conversationId: 5, folderId: 2 }]);
    expect((await readLog(db)).map((e) => e.id)).toEqual(['legacy:folder:1', 'legacy:folder:2', 'legacy:folder-link:11']);
    await ensureProjectionsCurrent(db);
    expect(await readLog(db)).toHaveLength(3);
    db.close();
  });
});
