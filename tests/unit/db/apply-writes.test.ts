/**
 * The Dexie executor plans writes per table (deferred bulkPut, in-memory merging, coalesced updateWhere). This
 * checks it against the in-memory store, which applies ops one by one, on random op sequences.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../../src/events/model';
import { MemoryStore } from '../../../src/projections/memory-store';
import { deleteWhere, put, remove, update, updateWhere } from '../../../src/projections/writes';
import type { Write } from '../../../src/projections/writes';
import { applyWrites, planWrites } from '../../../src/worker/db/apply-writes';
import { ParleyDB } from '../../../src/worker/db/schema';
import { mulberry32, sampleMessage } from '../../bench/log-append/sample-log';

const SLUGS = ['a', 'b', 'c'];

function randomWrite(rand: () => number): Write {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const key = 1 + Math.floor(rand() * 8);
  const changes = (): Partial<MessageRow> => {
    const c: Partial<MessageRow> = {};
    const r = rand();
    if (r < 0.3) c.prompt = `p${Math.floor(rand() * 100)}`;
    else if (r < 0.5) c.conversationSlug = pick(SLUGS);
    else if (r < 0.7) c.thinking = undefined; // removal
    else c.status = pick(['pending', 'streaming', 'done', 'error'] as const);
    if (rand() < 0.3) c.updatedAt = Math.floor(rand() * 1000);
    if (rand() < 0.2) c.thinking = `t${Math.floor(rand() * 10)}`;
    return c;
  };
  const r = rand();
  if (r < 0.3) {
    return put('messages', sampleMessage({ id: key, conversationSlug: pick(SLUGS), timestamp: 1_700_000_000_000 + key, role: 'user', prompt: `row${Math.floor(rand() * 100)}`, thinking: 'x' }));
  }
  if (r < 0.55) return update('messages', key, changes());
  if (r < 0.65) return remove('messages', key);
  if (r < 0.85) return updateWhere('messages', 'conversationSlug', pick(SLUGS), changes());
  if (r < 0.9) return updateWhere('messages', 'thinking', 'x', { model: 'via-scan' }); // unindexed field: scan path
  return deleteWhere('messages', 'conversationSlug', pick(SLUGS));
}

describe('applyWrites (Dexie) matches the in-memory store', () => {
  it('on random batches of puts, updates, deletes and where-ops', async () => {
    for (let seed = 1; seed <= 80; seed++) {
      const rand = mulberry32(seed);
      const db = new ParleyDB(`aw-${seed}`, { indexedDB: new IDBFactory(), IDBKeyRange });
      const mem = new MemoryStore();
      for (let b = 0; b < 8; b++) {
        const batch = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => randomWrite(rand));
        mem.applyAll(batch);
        await db.transaction('rw', db.messages, () => applyWrites(db, batch));
        expect(await db.messages.toArray(), `seed ${seed} batch ${b}: ${JSON.stringify(batch)}`).toEqual(mem.rows('messages'));
      }
      db.close();
    }
  });

  it('merges a run of updateWhere on the same conversation into one database op', () => {
    const writes: Write[] = [];
    for (let i = 0; i < 50; i++) {
      writes.push(put('messages', sampleMessage({ id: i, conversationSlug: 's', timestamp: i, role: 'user' })));
      writes.push(updateWhere('conversations', 'slug', 's', { updatedAt: i, latestMessage: `m${i}` }));
    }
    const plans = planWrites(writes);
    expect(plans.get('messages')?.pending.size).toBe(50);
    expect(plans.get('messages')?.ops).toEqual([]);
    expect(plans.get('conversations')?.ops).toEqual([{ kind: 'updateWhere', index: 'slug', equals: 's', changes: { updatedAt: 49, latestMessage: 'm49' } }]);
  });
});
