/**
 * The append fast path (native IndexedDB + in-memory mirror of conversations) against the in-memory store, on
 * random writes, with writes made behind its back through Dexie, failing batches and concurrent appends.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, MessageRow } from '../../../src/events/model';
import { fold } from '../../../src/projections/fold';
import { MemoryStore } from '../../../src/projections/memory-store';
import { defineProjection } from '../../../src/projections/projection';
import type { Projection } from '../../../src/projections/projection';
import { deleteWhere, put, remove, update, updateWhere } from '../../../src/projections/writes';
import type { Write } from '../../../src/projections/writes';
import { ParleyDB } from '../../../src/worker/db/schema';
import { appendEvents, readLog } from '../../../src/worker/log';
import { generateSampleLog, mulberry32, sampleMessage } from '../../bench/log-append/sample-log';

const SLUGS = ['a', 'b', 'c'];
let dbNo = 0;
const newDb = () => new ParleyDB(`native-${++dbNo}`, { indexedDB: new IDBFactory(), IDBKeyRange });

function conversation(id: number, slug: string, name: string): ConversationRow {
  return { id, uuid: `u${id}`, slug, name, createdAt: 1, updatedAt: 1, latestMessage: '', isMediaOnly: false };
}

function randomWrite(rand: () => number): Write {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const key = 1 + Math.floor(rand() * 6);
  const r = rand();
  if (rand() < 0.5) {
    // conversations (mirrored by the fast path)
    if (r < 0.3) return put('conversations', conversation(key, pick(SLUGS), `n${Math.floor(rand() * 50)}`));
    if (r < 0.5) return update('conversations', key, rand() < 0.5 ? { name: `u${Math.floor(rand() * 50)}` } : { slug: pick(SLUGS) });
    if (r < 0.6) return remove('conversations', key);
    if (r < 0.9) return updateWhere('conversations', 'slug', pick(SLUGS), rand() < 0.8 ? { updatedAt: Math.floor(rand() * 1e6), latestMessage: `m${Math.floor(rand() * 9)}` } : { slug: pick(SLUGS) });
    return deleteWhere('conversations', 'slug', pick(SLUGS));
  }
  const changes = (): Partial<MessageRow> => (rand() < 0.3 ? { conversationSlug: pick(SLUGS) } : rand() < 0.5 ? { thinking: undefined } : { prompt: `p${Math.floor(rand() * 99)}` });
  if (r < 0.3) return put('messages', sampleMessage({ id: key, conversationSlug: pick(SLUGS), timestamp: key, role: 'user', prompt: `r${Math.floor(rand() * 99)}`, thinking: 'x' }));
  if (r < 0.55) return update('messages', key, changes());
  if (r < 0.65) return remove('messages', key);
  if (r < 0.85) return updateWhere('messages', 'conversationSlug', pick(SLUGS), changes());
  if (r < 0.9) return updateWhere('messages', 'thinking', 'x', { model: 'scan' });
  return deleteWhere('messages', 'conversationSlug', pick(SLUGS));
}

/** A projection that returns the writes registered for each event id. */
function scripted(): { projection: Projection; script: Map<string, Write[]> } {
  const script = new Map<string, Write[]>();
  const projection = defineProjection({ name: 'scripted', version: 1, tables: ['conversations', 'messages'], materializers: { 'reply.interrupted': (_, e) => script.get(e.id) ?? [] } });
  return { script, projection };
}

let evNo = 0;
const dummy = (): NewEvent => makeEvent('reply.interrupted', { messageId: 0, conversationSlug: '-', reason: '-', at: 0 }, `d${++evNo}`, 0);

async function expectSame(db: ParleyDB, mem: MemoryStore, label: string) {
  expect(await db.conversations.toArray(), label).toEqual(mem.rows('conversations'));
  expect(await db.messages.toArray(), label).toEqual(mem.rows('messages'));
}

describe('native append path', () => {
  it('matches the in-memory store on random writes, across Dexie writes behind its back and failed batches', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = mulberry32(seed);
      const db = newDb();
      const mem = new MemoryStore();
      const { projection, script } = scripted();
      for (let b = 0; b < 10; b++) {
        const events = Array.from({ length: 1 + Math.floor(rand() * 4) }, dummy);
        const writes: Write[] = [];
        for (const e of events) {
          const list = Array.from({ length: Math.floor(rand() * 4) }, () => randomWrite(rand));
          script.set(e.id, list);
          writes.push(...list);
        }
        const roll = rand();
        if (roll < 0.1) {
          // A batch that fails (invalid key in the last write): nothing of it may stick, in the db or the mirror.
          script.get(events.at(-1)!.id)!.push(put('messages', sampleMessage({ id: Number.NaN, conversationSlug: 'a', timestamp: 1, role: 'user' })));
          await expect(appendEvents(db, events, { projections: [projection], path: 'native' })).rejects.toThrow();
        } else {
          mem.applyAll(writes);
          await appendEvents(db, events, { projections: [projection], path: 'native' });
        }
        await expectSame(db, mem, `seed ${seed} batch ${b}`);
        if (roll > 0.85) {
          // Someone writes conversations through Dexie: the mirror must notice.
          const row = conversation(1 + Math.floor(rand() * 6), SLUGS[Math.floor(rand() * 3)] as string, 'via-dexie');
          await db.conversations.put(row);
          mem.apply(put('conversations', row));
        }
      }
      db.close();
    }
  });

  it('gives the same database as the Dexie path and as fold()', async () => {
    const events = generateSampleLog({ events: 1200, seed: 31, activeConversations: 5 });
    const results = [];
    for (const path of ['native', 'dexie'] as const) {
      const db = newDb();
      for (let i = 0; i < events.length; i += 3) await appendEvents(db, events.slice(i, i + 3), { path });
      results.push({ conversations: await db.conversations.toArray(), messages: await db.messages.toArray() });
      db.close();
    }
    const expected = fold(events);
    expect(results[0]).toEqual({ conversations: expected.rows('conversations'), messages: expected.rows('messages') });
    expect(results[1]).toEqual(results[0]);
  });

  it('serialises concurrent appends in call order', async () => {
    const events = generateSampleLog({ events: 300, seed: 32 });
    const db = newDb();
    const batches: NewEvent[][] = [];
    for (let i = 0; i < events.length; i += 4) batches.push(events.slice(i, i + 4));
    const stored = await Promise.all(batches.map((b) => appendEvents(db, b)));
    expect(stored.flat().map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect((await readLog(db)).map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await db.conversations.toArray()).toEqual(fold(events).rows('conversations'));
    db.close();
  });

  it('joins a caller transaction (and rolls back with it)', async () => {
    const db = newDb();
    const created = makeEvent('conversation.created', { conversation: conversation(1, 'a', 'A') }, 'c1', 1);
    await expect(
      db.transaction('rw', [db.events, db.conversations, db.messages, db.instructions, db.scratchpadEntries, db.folders, db.conversationFolders, db.library, db.libraryConversations, db.messageLibrary], async () => {
        await appendEvents(db, [created]);
        expect(await db.conversations.count()).toBe(1);
        throw new Error('command failed validation');
      }),
    ).rejects.toThrow('command failed validation');
    expect(await db.events.count()).toBe(0);
    expect(await db.conversations.count()).toBe(0);
    await appendEvents(db, [created]);
    expect(await db.conversations.get(1)).toEqual(conversation(1, 'a', 'A'));
    db.close();
  });

  it('reports a closed database as DatabaseClosedError (for the lifecycle retry)', async () => {
    const db = newDb();
    await db.open();
    db.close();
    await expect(appendEvents(db, [dummy()])).rejects.toMatchObject({ name: 'DatabaseClosedError' });
  });
});
