/**
 * Writers (src/projections/projection.ts): a materializer written to send its writes to a sink. A fold hands them
 * the memory store itself; the worker's append path gets the same writes as Write ops. Both must mean the same.
 */
import { describe, expect, it } from 'vitest';
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import { fold } from '../../../src/projections/fold';
import { MemoryStore } from '../../../src/projections/memory-store';
import { defineProjection, dispatchOf, writesOfEvent } from '../../../src/projections/projection';
import { projections } from '../../../src/projections/registry';
import { put, update, WriteList } from '../../../src/projections/writes';
import type { TableName, Write } from '../../../src/projections/writes';
import { inspectorLog } from '../inspect/fixture';
import { sampleMessage } from '../../bench/log-append/sample-log';

const TABLES: TableName[] = ['conversations', 'messages', 'messageLibrary', 'library', 'libraryConversations', 'instructions', 'scratchpadEntries', 'folders', 'conversationFolders'];

describe('writers', () => {
  it('a fold (writers into the store) ends in the same tables as applying each event\'s Write ops', () => {
    const events = inspectorLog(3000);
    // Failures of both kinds and an interruption are in the sample; add a failed reply that keeps its own error.
    const added = events.find((e): e is Extract<NewEvent, { type: 'reply.started' }> => e.type === 'reply.started')!.payload;
    const t = events[events.length - 1]!.at + 1;
    events.push(
      makeEvent(
        'reply.failed',
        { messageId: added.messageId, userMessageId: added.messageId - 1, conversationSlug: added.conversationSlug, text: 'partial', thinking: '', error: 'boom', keepPartial: true, ownError: true, cost: 0.5, paymentSource: 'USD', at: t },
        'x-f-1',
        t,
      ),
    );
    const types = new Set(events.map((e) => e.type));
    for (const type of ['message.added', 'reply.started', 'reply.checkpointed', 'reply.completed', 'reply.failed', 'reply.interrupted', 'branch.activated']) expect(types).toContain(type);

    const folded = fold(events);
    const byOps = new MemoryStore();
    const dispatch = dispatchOf(projections);
    for (const e of events) {
      const writes: Write[] = [];
      writesOfEvent(dispatch, e, writes);
      byOps.applyAll(writes);
    }
    for (const table of TABLES) expect({ table, rows: folded.rows(table) }).toEqual({ table, rows: byOps.rows(table) });
    expect(folded.size('messages')).toBeGreaterThan(1000);
  });

  it('a writer\'s materializer returns the writes it sends, in order; a materializer\'s writer sends the writes it returns', () => {
    const row = sampleMessage({ id: 1, conversationSlug: 'a', timestamp: 5, role: 'user', prompt: 'hi' });
    const p = defineProjection({
      name: 'both',
      version: 1,
      tables: ['messages'],
      writers: {
        'message.added': ({ message }, event, out) => {
          out.put('messages', message);
          out.update('messages', message.id, { updatedAt: event.at });
        },
      },
      materializers: {
        'message.retried': (q) => [update('messages', q.messageId, { status: 'done' })],
      },
    });
    const added = makeEvent('message.added', { message: row }, 'e1', 9);
    expect(p.apply(added)).toEqual([put('messages', row), update('messages', 1, { updatedAt: 9 })]);
    const payload = { conversationSlug: 'a', messageId: 1, at: 10 };
    const retried = makeEvent('message.retried', payload, 'e2', 10);
    const out = new WriteList();
    p.writers['message.retried']!(payload, retried as Extract<NewEvent, { type: 'message.retried' }>, out);
    expect(out.writes).toEqual([update('messages', 1, { status: 'done' })]);
    expect(fold([added, retried], [p]).get('messages', 1)).toEqual({ ...row, updatedAt: 9, status: 'done' });
  });

  it('refuse an event given both a materializer and a writer', () => {
    expect(() =>
      defineProjection({
        name: 'twice',
        version: 1,
        tables: ['messages'],
        writers: { 'message.retried': () => undefined },
        materializers: { 'message.retried': () => [] },
      }),
    ).toThrow("projection twice: 'message.retried' has both a materializer and a writer");
  });
});
