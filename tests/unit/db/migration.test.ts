/**
 * Upgrade of a real schema v40 database (created with raw Dexie from the frozen v40 schema below) to v42.
 * The fixtures here are frozen copies of the old shapes: never edit them, add new ones for new versions.
 */
import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { MIGRATION_BATCH_SIZE, ParleyDB } from '../../../src/worker/db/schema';
import type { UpgradeProgress } from '../../../src/worker/db/schema';
import { ensureProjectionsCurrent } from '../../../src/worker/log';

/** Frozen: the pre-branch schema (spec 000 section 3, before v41). */
const FROZEN_SCHEMA_V40 = Object.freeze({
  conversations: '++id, slug, name, createdAt, updatedAt, latestMessage, uuid, isMediaOnly',
  messages: '++id, timestamp, model, role, prompt, cost, conversationSlug, modelContext',
  messageLibrary: '++id, messageId, libraryId',
  files: '++id',
  library: '++id, createdAt, lastModified, fileId, name, content, processingTime, type, status, order',
  libraryConversations: '++id, libraryId, conversationId',
  instructions: '++id, name, instructions, createdAt, updatedAt',
  scratchpadEntries: '++id, content, type, timestamp, conversationSlug',
});

/** Frozen: the v41 additions. */
const FROZEN_SCHEMA_V41_MESSAGES =
  '++id, timestamp, model, role, prompt, cost, conversationSlug, modelContext, parentMessageId, alternativeGroup, branchIndex, isActiveBranch, branchDepth, updatedAt';

/** Frozen: a v40 conversation row. */
const V40_CONVERSATION = Object.freeze({
  id: 1, uuid: 'c0ffee00-0000-4000-8000-000000000001', slug: 'legacy-chat', name: 'Legacy chat', createdAt: 1_600_000_000_000,
  updatedAt: 1_600_000_500_000, latestMessage: 'last words', isMediaOnly: false,
});

const MESSAGES = 3500;
const SECONDS_EVERY = 7; // every 7th message has a seconds timestamp (10 digits)
const PARENT_EVERY = 11; // every 11th message already carries branch fields (branch data written by a newer tab)

/** Frozen: a v40 message row as the old app stored it (no branch fields, no status). */
function v40Message(i: number): Record<string, unknown> {
  const ms = 1_600_000_000_000 + i * 1000;
  const row: Record<string, unknown> = {
    id: i,
    conversationSlug: 'legacy-chat',
    timestamp: i % SECONDS_EVERY === 0 ? Math.floor(ms / 1000) : ms,
    role: i % 2 === 0 ? 'assistant' : 'user',
    prompt: i % 13 === 0 ? [{ type: 'text', text: `part ${i}` }, { type: 'image_url', image_url: { url: 'data:,x' } }] : `message ${i}`,
    model: 'gpt-4o',
    cost: i % 2 === 0 ? 0.001 : undefined,
    modelContext: 'ctx',
    images: i % 17 === 0 ? [{ id: 'img', url: 'https://example.invalid/x.png' }] : undefined,
  };
  if (i % PARENT_EVERY === 0) {
    Object.assign(row, { parentMessageId: i - 1, alternativeGroup: `g${i}`, branchIndex: 2, isActiveBranch: false, branchDepth: 5, updatedAt: 42 });
  }
  for (const k of Object.keys(row)) if (row[k] === undefined) delete row[k];
  return row;
}

async function createV40(name: string, factory: IDBFactory): Promise<void> {
  const old = new Dexie(name, { indexedDB: factory, IDBKeyRange });
  old.version(40).stores(FROZEN_SCHEMA_V40);
  await old.open();
  await old.table('conversations').add({ ...V40_CONVERSATION });
  await old.table('messages').bulkAdd(Array.from({ length: MESSAGES }, (_, k) => v40Message(k + 1)));
  await old.table('instructions').add({ id: 1, name: 'Pirate', instructions: 'Talk like a pirate', createdAt: 1, updatedAt: 2 });
  await old.table('library').add({ id: 1, name: 'doc.pdf', content: ['page 1'], createdAt: 1, lastModified: 1, fileId: 1, processingTime: 3, type: 'file', status: 'completed', order: 0 });
  expect(old.verno).toBe(40);
  old.close();
}

describe('schema upgrade 40 -> 41 -> 42', () => {
  it('fills the branch fields of every message lacking a parent, in batches, leaving the rest intact', async () => {
    const factory = new IDBFactory();
    await createV40('legacy', factory);

    const progress: UpgradeProgress[] = [];
    const db = new ParleyDB('legacy', { indexedDB: factory, IDBKeyRange, onUpgradeProgress: (p) => progress.push(p) });
    await db.open();
    expect(db.verno).toBe(42);

    // Batches of 1000 by key paging: ceil(3500 / 1000) = 4 batches, the last one partial.
    expect(progress.map((p) => p.rows)).toEqual([1000, 1000, 1000, 500]);
    expect(progress.length).toBeGreaterThanOrEqual(MESSAGES / MIGRATION_BATCH_SIZE);
    expect(progress.every((p) => p.version === 41 && p.table === 'messages')).toBe(true);

    const rows = await db.messages.toArray();
    expect(rows).toHaveLength(MESSAGES);
    for (const row of rows) {
      const original = v40Message(row.id);
      const ms = 1_600_000_000_000 + row.id * 1000;
      expect(row.timestamp).toBe(ms);
      if (row.id % PARENT_EVERY === 0) {
        // Already had a parent: its branch fields are untouched.
        expect(row).toMatchObject({ parentMessageId: row.id - 1, alternativeGroup: `g${row.id}`, branchIndex: 2, isActiveBranch: false, branchDepth: 5, updatedAt: 42 });
      } else {
        expect(row).toMatchObject({ parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: ms });
      }
      // Everything else kept as it was.
      const { timestamp: _t, ...rest } = original;
      expect(row).toMatchObject(rest);
    }

    // The v41 indexes are usable.
    expect(await db.messages.where('branchDepth').equals(0).count()).toBe(MESSAGES - Math.floor(MESSAGES / PARENT_EVERY));
    expect(await db.messages.where('parentMessageId').equals(10).count()).toBe(1);
    // Other tables untouched; v42 tables exist.
    expect(await db.conversations.get(1)).toEqual(V40_CONVERSATION);
    expect(await db.instructions.get(1)).toMatchObject({ name: 'Pirate' });
    expect(await db.library.get(1)).toMatchObject({ name: 'doc.pdf' });
    expect(await db.folders.count()).toBe(0);
    await db.folders.add({ id: 1, name: 'Work', createdAt: 1, updatedAt: 1, parentId: null });
    await db.conversationFolders.add({ id: 1, conversationId: 1, folderId: 1 });
    expect(await db.events.count()).toBe(0);
    db.close();
  });

  it('a migrated database keeps its data when the engine first brings projections up to date', async () => {
    const factory = new IDBFactory();
    await createV40('legacy-adopt', factory);
    const db = new ParleyDB('legacy-adopt', { indexedDB: factory, IDBKeyRange });
    const before = await db.messages.toArray();
    const result = await ensureProjectionsCurrent(db);
    expect(result.adopted).toBe(MESSAGES + 1);
    const after = await db.messages.toArray();
    // v40 rows had no UI status: adopted as finished messages.
    expect(after).toEqual(before.map((m) => ({ ...m, status: m.status ?? 'done' })));
    const conversation = await db.conversations.get(1);
    expect(conversation).toMatchObject({ slug: 'legacy-chat', name: 'Legacy chat', uuid: V40_CONVERSATION.uuid });
    expect(conversation?.updatedAt).toBe(1_600_000_000_000 + MESSAGES * 1000); // the last message
    expect(await db.instructions.count()).toBe(1);
    db.close();
  });

  it('upgrades a v41 database to v42 without touching messages', async () => {
    const factory = new IDBFactory();
    const old = new Dexie('v41', { indexedDB: factory, IDBKeyRange });
    old.version(40).stores(FROZEN_SCHEMA_V40);
    old.version(41).stores({ messages: FROZEN_SCHEMA_V41_MESSAGES });
    await old.open();
    const row = { id: 1, conversationSlug: 's', timestamp: 1_600_000_000_000, role: 'user', prompt: 'p', model: 'm', status: 'done', parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: 7 };
    await old.table('messages').add(row);
    old.close();
    const progress: UpgradeProgress[] = [];
    const db = new ParleyDB('v41', { indexedDB: factory, IDBKeyRange, onUpgradeProgress: (p) => progress.push(p) });
    await db.open();
    expect(db.verno).toBe(42);
    expect(progress).toEqual([]);
    expect(await db.messages.get(1)).toEqual(row);
    db.close();
  });

  it('creates a fresh database directly at v42', async () => {
    const db = new ParleyDB('fresh', { indexedDB: new IDBFactory(), IDBKeyRange });
    await db.open();
    expect(db.verno).toBe(42);
    expect(db.tables.map((t) => t.name).sort()).toEqual(
      ['conversationFolders', 'conversations', 'events', 'files', 'folders', 'instructions', 'library', 'libraryConversations', 'messageLibrary', 'messages', 'meta', 'scratchpadEntries'],
    );
    expect(db.events.schema.primKey.name).toBe('seq');
    expect(db.events.schema.indexes.map((i) => [i.name, i.unique])).toEqual([['id', true], ['type', false]]);
    db.close();
  });
});
