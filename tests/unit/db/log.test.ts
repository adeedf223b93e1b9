import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import { decodeLog, encodeLog, LogFormatError } from '../../../src/events/codec';
import type { ConversationRow } from '../../../src/events/model';
import { fold } from '../../../src/projections/fold';
import type { MemoryStore } from '../../../src/projections/memory-store';
import { messagesProjection } from '../../../src/projections/messages';
import { defineProjection } from '../../../src/projections/projection';
import type { Projection } from '../../../src/projections/projection';
import { ParleyDB } from '../../../src/worker/db/schema';
import {
  appendEvents,
  ensureProjectionsCurrent,
  exportLogNdjson,
  importLogNdjson,
  LEGACY_ADOPTED_KEY,
  readLog,
  rebuildReadModels,
} from '../../../src/worker/log';
import type { RebuildProgress } from '../../../src/worker/log';
import { generateSampleLog, sampleMessage } from '../../bench/log-append/sample-log';

let dbs: ParleyDB[] = [];
let counter = 0;
function newDb(): ParleyDB {
  const db = new ParleyDB(`log-test-${++counter}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  dbs.push(db);
  return db;
}
afterEach(() => {
  for (const db of dbs) db.close();
  dbs = [];
});

async function appendInBatches(db: ParleyDB, events: NewEvent[], sizes: number[]): Promise<void> {
  let i = 0;
  let k = 0;
  while (i < events.length) {
    const size = sizes[k++ % sizes.length] as number;
    await appendEvents(db, events.slice(i, i + size));
    i += size;
  }
}

async function expectDbEquals(db: ParleyDB, store: MemoryStore): Promise<void> {
  expect(await db.conversations.toArray()).toEqual(store.rows('conversations'));
  expect(await db.messages.toArray()).toEqual(store.rows('messages'));
}

const T0 = 1_700_000_000_000;
const conv = (id: number, slug: string): ConversationRow => ({
  id, uuid: `u${id}`, slug, name: slug, createdAt: T0, updatedAt: T0, latestMessage: '', isMediaOnly: false,
});

describe('appendEvents', () => {
  it('stores the events with increasing seq and returns them', async () => {
    const db = newDb();
    const events = generateSampleLog({ events: 20, seed: 1 });
    const stored = await appendEvents(db, events.slice(0, 5));
    expect(stored.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(stored.map(({ seq: _s, ...rest }) => rest)).toEqual(events.slice(0, 5));
    expect(events[0]).not.toHaveProperty('seq'); // inputs untouched
    const more = await appendEvents(db, events.slice(5));
    expect(more[0]?.seq).toBe(6);
    expect(await readLog(db)).toEqual([...stored, ...more]);
    const n = events.length;
    expect(await readLog(db, n - 2)).toEqual(more.slice(-3));
    expect(await readLog(db, 2, 2)).toEqual(stored.slice(1, 3));
    expect(await appendEvents(db, [])).toEqual([]);
  });

  it('leaves the database equal to fold() of the same events, whatever the batch sizes', async () => {
    const events = generateSampleLog({ events: 1500, seed: 11, activeConversations: 6, secondsTimestamps: 0.1 });
    const expected = fold(events);
    for (const sizes of [[1], [2, 7, 1, 30], [500]]) {
      const db = newDb();
      await appendInBatches(db, events, sizes);
      await expectDbEquals(db, expected);
    }
  });

  it('folds reply events that land in the same batch as their message (coalesced writes)', async () => {
    const db = newDb();
    const slug = 'c';
    const batch: NewEvent[] = [
      makeEvent('conversation.created', { conversation: conv(1, slug) }, 'a', T0),
      makeEvent('message.added', { message: sampleMessage({ id: 1, conversationSlug: slug, timestamp: T0 + 1, role: 'user', prompt: 'q' }) }, 'b', T0 + 1),
      makeEvent('message.added', { message: sampleMessage({ id: 2, conversationSlug: slug, timestamp: T0 + 2, role: 'assistant', status: 'pending' }) }, 'c', T0 + 2),
      makeEvent('reply.started', { messageId: 2, conversationSlug: slug, model: 'm', requestId: 'req-2', at: T0 + 3 }, 'd', T0 + 3),
      makeEvent('reply.failed', { messageId: 2, userMessageId: 1, conversationSlug: slug, error: 'x', keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at: T0 + 4 }, 'e', T0 + 4),
      makeEvent('message.added', { message: sampleMessage({ id: 3, conversationSlug: slug, timestamp: T0 + 5, role: 'assistant', status: 'pending' }) }, 'f', T0 + 5),
      makeEvent('reply.completed', { messageId: 3, conversationSlug: slug, text: 'answer', thinking: '', cost: 1, paymentSource: 'USD', outputTokens: 1, at: T0 + 6 }, 'g', T0 + 6),
    ];
    await appendEvents(db, batch);
    await expectDbEquals(db, fold(batch));
    expect((await db.conversations.get(1))?.latestMessage).toBe('answer');
  });

  it('rejects an event that is not at the current version, writing nothing', async () => {
    const db = newDb();
    const e = { ...makeEvent('conversation.created', { conversation: conv(1, 'c') }, 'a', T0), v: 1 };
    const old = { ...makeEvent('message.added', { message: sampleMessage({ id: 1, conversationSlug: 'c', timestamp: T0, role: 'user' }) }, 'b', T0), v: 1 };
    await expect(appendEvents(db, [e, old])).rejects.toThrow(/must be appended at version 2/);
    expect(await db.events.count()).toBe(0);
  });

  describe('is atomic', () => {
    const good = (): NewEvent[] => [
      makeEvent('conversation.created', { conversation: conv(1, 'c') }, 'ok-1', T0),
      makeEvent('message.added', { message: sampleMessage({ id: 1, conversationSlug: 'c', timestamp: T0, role: 'user', prompt: 'hi' }) }, 'ok-2', T0),
    ];

    it('a projection that throws stores no event', async () => {
      const db = newDb();
      const boom = defineProjection({ name: 'boom', version: 1, tables: ['messages'], materializers: { 'conversation.created': () => { throw new Error('projection bug'); } } });
      await expect(appendEvents(db, good(), { projections: [boom] })).rejects.toThrow('projection bug');
      expect(await db.events.count()).toBe(0);
    });

    it('a projection write the database rejects stores no event and no other write', async () => {
      const db = newDb();
      // A row whose primary key is not a valid key: the put fails inside the transaction.
      const bad = makeEvent('message.added', { message: sampleMessage({ id: Number.NaN, conversationSlug: 'c', timestamp: T0, role: 'user' }) }, 'bad', T0);
      await expect(appendEvents(db, [...good(), bad])).rejects.toThrow();
      expect(await db.events.count()).toBe(0);
      expect(await db.conversations.count()).toBe(0);
      expect(await db.messages.count()).toBe(0);
    });

    it('a projection writing outside its declared tables fails the append, storing nothing', async () => {
      const db = newDb();
      await appendEvents(db, good());
      // Declares only 'messages' but writes 'conversations': not in the transaction, so the write throws.
      const sloppy = defineProjection({
        name: 'sloppy', version: 1, tables: ['messages'],
        materializers: {
          'conversation.created': (_, e) => [
            { op: 'put', table: 'messages', row: sampleMessage({ id: 99, conversationSlug: 'c', timestamp: T0, role: 'user' }) },
            { op: 'updateWhere', table: 'conversations', index: 'slug', equals: 'c', changes: { name: e.id } },
          ],
        },
      });
      await expect(appendEvents(db, [makeEvent('conversation.created', { conversation: conv(2, 'd') }, 'ok-3', T0)], { projections: [sloppy] })).rejects.toThrow();
      expect(await db.events.count()).toBe(2);
      expect(await db.messages.get(99)).toBeUndefined();
    });

    it('a duplicate event id stores nothing of the batch', async () => {
      const db = newDb();
      await appendEvents(db, good().slice(0, 1));
      const dup = [
        makeEvent('message.added', { message: sampleMessage({ id: 7, conversationSlug: 'c', timestamp: T0 + 9, role: 'user', prompt: 'dup' }) }, 'fresh', T0),
        makeEvent('conversation.created', { conversation: conv(1, 'c') }, 'ok-1', T0),
      ];
      await expect(appendEvents(db, dup)).rejects.toThrow();
      expect(await db.events.count()).toBe(1);
      expect(await db.messages.count()).toBe(0);
      expect((await db.conversations.get(1))?.updatedAt).toBe(T0);
    });
  });
});

describe('rebuildReadModels', () => {
  it('clears only projection tables and rebuilds them from the log, reporting progress', async () => {
    const db = newDb();
    const events = generateSampleLog({ events: 5000, seed: 5 });
    await appendInBatches(db, events, [100]);
    await db.messages.clear();
    await db.conversations.update(1, { name: 'tampered' });
    await db.files.add({ id: 1, file: new ArrayBuffer(4) });
    const progress: RebuildProgress[] = [];
    const result = await rebuildReadModels(db, (p) => progress.push(p));
    await expectDbEquals(db, fold(events));
    expect(await db.files.count()).toBe(1);
    expect(result.events).toBe(events.length);
    expect(result.rows.messages).toBe(fold(events).size('messages'));
    const replay = progress.filter((p) => p.phase === 'replay');
    expect(replay.length).toBeGreaterThanOrEqual(3); // paged
    expect(replay.at(-1)).toEqual({ phase: 'replay', done: events.length, total: events.length });
    expect(progress.at(-1)?.phase).toBe('done');
  });
});

describe('ensureProjectionsCurrent', () => {
  it('records versions on a fresh database and then does nothing', async () => {
    const db = newDb();
    expect(await ensureProjectionsCurrent(db)).toEqual({ rebuilt: ['conversations', 'messages', 'instructions', 'scratchpad', 'folders', 'library'], adopted: 0 });
    expect(await db.meta.get('projection:messages')).toEqual({ key: 'projection:messages', value: messagesProjection.version });
    expect(await ensureProjectionsCurrent(db)).toEqual({ rebuilt: [], adopted: 0 });
  });

  it('rebuilds exactly the projection whose version changed', async () => {
    const db = newDb();
    const events = generateSampleLog({ events: 600, seed: 9 });
    await ensureProjectionsCurrent(db);
    await appendInBatches(db, events, [50]);
    await db.messages.update(2, { prompt: 'tampered message' });
    await db.conversations.update(1, { name: 'tampered conversation' });
    expect((await ensureProjectionsCurrent(db)).rebuilt).toEqual([]);

    const bumped: Projection = { ...messagesProjection, version: messagesProjection.version + 1 };
    const [conversations] = (await import('../../../src/projections/registry')).projections;
    const result = await ensureProjectionsCurrent(db, { projections: [conversations!, bumped] });
    expect(result.rebuilt).toEqual(['messages']);
    expect(await db.messages.toArray()).toEqual(fold(events).rows('messages'));
    expect((await db.conversations.get(1))?.name).toBe('tampered conversation');
    expect((await db.meta.get('projection:messages'))?.value).toBe(messagesProjection.version + 1);
  });

  it('adopts the rows of a database that predates the log before rebuilding, losing nothing', async () => {
    const db = newDb();
    const rows = fold(generateSampleLog({ events: 300, seed: 2, activeConversations: 3 }));
    await db.conversations.bulkPut(rows.rows('conversations'));
    await db.messages.bulkPut(rows.rows('messages'));
    const result = await ensureProjectionsCurrent(db);
    expect(result.adopted).toBe(rows.size('conversations') + rows.size('messages'));
    expect(result.rebuilt).toEqual(['conversations', 'messages', 'instructions', 'scratchpad', 'folders', 'library']);
    expect(await db.messages.toArray()).toEqual(rows.rows('messages'));
    const convs = await db.conversations.toArray();
    expect(convs.map((c) => [c.id, c.slug, c.name])).toEqual(rows.rows('conversations').map((c) => [c.id, c.slug, c.name]));
    expect((await db.meta.get(LEGACY_ADOPTED_KEY))?.value).toEqual({ events: result.adopted });
    // The adopted log replays to the same read models.
    await expectDbEquals(db, fold(await readLog(db)));
    expect((await ensureProjectionsCurrent(db)).adopted).toBe(0);
  });
});

describe('export and import', () => {
  it('exports the log as NDJSON that decodes to the stored events', async () => {
    const db = newDb();
    const events = generateSampleLog({ events: 200, seed: 4 });
    await appendInBatches(db, events, [3]);
    const text = await exportLogNdjson(db, 123);
    const { header, events: decoded } = decodeLog(text);
    expect(header).toMatchObject({ exportedAt: 123, count: events.length, schema: 42 });
    expect(decoded).toEqual(await readLog(db));
  });

  it('imports into an empty database, then skips everything it already has', async () => {
    const source = newDb();
    const events = generateSampleLog({ events: 400, seed: 8 });
    await appendInBatches(source, events, [10]);
    const text = await exportLogNdjson(source, 1);

    const target = newDb();
    expect(await importLogNdjson(target, text)).toEqual({ imported: events.length, skipped: 0 });
    await expectDbEquals(target, fold(events));
    expect(await importLogNdjson(target, text)).toEqual({ imported: 0, skipped: events.length });
    expect(await target.events.count()).toBe(events.length);
  });

  it('appends only the events it lacks, then rebuilds', async () => {
    const events = generateSampleLog({ events: 300, seed: 12 });
    const target = newDb();
    await appendEvents(target, events.slice(0, 100));
    const text = encodeLog(events.slice(50), { exportedAt: 1 });
    expect(await importLogNdjson(target, text)).toEqual({ imported: 200, skipped: 50 });
    expect((await readLog(target)).map((e) => e.id)).toEqual(events.map((e) => e.id));
    await expectDbEquals(target, fold(events));
  });

  it('rejects a malformed file without changing anything', async () => {
    const db = newDb();
    const events = generateSampleLog({ events: 50, seed: 1 });
    await appendEvents(db, events.slice(0, 10));
    const lines = encodeLog(events, { exportedAt: 1 }).split('\n');
    lines[30] = '{"broken":';
    await expect(importLogNdjson(db, lines.join('\n'))).rejects.toThrow(LogFormatError);
    await expect(importLogNdjson(db, lines.join('\n'))).rejects.toThrow(/^line 31: not valid JSON/);
    expect(await db.events.count()).toBe(10);
  });
});
