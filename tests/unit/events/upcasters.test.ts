import { describe, expect, it } from 'vitest';
import type { RawEvent } from '../../../src/events/catalogue';
import { upgradeMessageRowToV41 } from '../../../src/events/message-upgrade';
import type { LegacyMessageRow } from '../../../src/events/message-upgrade';
import { UpcastError, upcast } from '../../../src/events/upcasters';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { foldQueue } from '../../../src/projections/queue';

/** A message.added v1 event as the pre-branch app shape stored it. Frozen fixture: do not edit. */
const V1_EVENT: RawEvent = Object.freeze({
  seq: 7,
  type: 'message.added',
  v: 1,
  id: 'old-1',
  at: 1_600_000_000_000,
  payload: Object.freeze({
    message: Object.freeze({
      id: 5, conversationSlug: 'old-chat', timestamp: 1_600_000_000, role: 'user', prompt: 'hi there', model: 'gpt-4', status: 'done', cost: 0.01,
    }),
  }),
}) as RawEvent;

describe('upcast', () => {
  it('returns a current event unchanged (same object)', () => {
    const e: RawEvent = { type: 'reply.started', v: 1, id: 'x', at: 1, payload: { messageId: 1, conversationSlug: 's', model: 'm', requestId: 'r', at: 1 } };
    expect(upcast(e)).toBe(e);
  });

  it('message.added v1 -> v2 fills the branch fields like the v41 upgrade and normalises the timestamp', () => {
    const out = upcast(V1_EVENT);
    expect(out).toEqual({
      seq: 7,
      type: 'message.added',
      v: 2,
      id: 'old-1',
      at: 1_600_000_000_000,
      payload: {
        message: {
          id: 5, conversationSlug: 'old-chat', timestamp: 1_600_000_000_000, role: 'user', prompt: 'hi there', model: 'gpt-4', status: 'done', cost: 0.01,
          parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: 1_600_000_000_000,
        },
      },
    });
    // Identical to what the database migration produces for the same row.
    const payload = V1_EVENT.payload as { message: LegacyMessageRow };
    expect(out.type === 'message.added' && out.payload.message).toEqual(upgradeMessageRowToV41(payload.message));
  });

  it('message.added v1 without a status (very old row) becomes done', () => {
    const { status: _status, ...noStatus } = (V1_EVENT.payload as { message: LegacyMessageRow }).message;
    const out = upcast({ ...V1_EVENT, payload: { message: noStatus } });
    expect(out.type === 'message.added' && out.payload.message.status).toBe('done');
  });

  it('a v1 row that already has a parent keeps it', () => {
    const msg = { ...(V1_EVENT.payload as { message: LegacyMessageRow }).message, parentMessageId: 4, branchIndex: 2, alternativeGroup: 'g' };
    const out = upcast({ ...V1_EVENT, payload: { message: msg } });
    expect(out.type === 'message.added' && out.payload.message).toMatchObject({ parentMessageId: 4, branchIndex: 2, alternativeGroup: 'g', isActiveBranch: true });
  });

  it('rejects an unknown type clearly', () => {
    expect(() => upcast({ type: 'message.exploded', v: 1, id: 'z', at: 1, payload: {} })).toThrow(/unknown event type 'message.exploded'/);
  });

  it('rejects a version newer than this build', () => {
    try {
      upcast({ ...V1_EVENT, v: 3 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UpcastError);
      expect((e as UpcastError).code).toBe('newer-version');
      expect((e as Error).message).toMatch(/'message.added' version 3, newer than this build supports \(version 2\)/);
    }
  });

  it('rejects a bad envelope and a malformed v1 payload', () => {
    expect(() => upcast({ ...V1_EVENT, v: 0 })).toThrow(/event.v must be a positive integer/);
    expect(() => upcast({ ...V1_EVENT, id: '' })).toThrow(/event.id/);
    expect(() => upcast({ ...V1_EVENT, payload: { message: { id: 'five' } } })).toThrow(/payload.message.id/);
  });

  it('validates the resulting payload on request', () => {
    const bad: RawEvent = { type: 'reply.completed', v: 1, id: 'q', at: 1, payload: { messageId: 1, conversationSlug: 's', text: 'x', thinking: '', cost: 'free', paymentSource: null, outputTokens: null, at: 1 } };
    expect(() => upcast(bad)).not.toThrow();
    expect(() => upcast(bad, { validate: true })).toThrow(/payload.cost is not a number/);
  });
});

/** A queue.messageAdded v1 event as builds before the web search field stored it. Frozen fixture: do not edit. */
const QUEUE_V1: RawEvent = Object.freeze({
  seq: 12,
  type: 'queue.messageAdded',
  v: 1,
  id: 'queued-old',
  at: 1_763_800_000_000,
  payload: Object.freeze({
    conversationSlug: 'q-old',
    message: { id: 'qm-old', prompt: 'later please', attachments: [], scrapedUrls: [], scrapedContent: [], timestamp: 1_763_800_000_000 },
    model: 'gpt-4',
    extraModels: ['claude'],
    at: 1_763_800_000_000,
  }),
}) as RawEvent;

describe('queue.messageAdded v1 -> v2 (the queued message keeps its web search)', () => {
  it('adds webSearch null (queued with web search off) and keeps the rest; the result validates', () => {
    const out = upcast(QUEUE_V1, { validate: true });
    expect(out).toEqual({ ...QUEUE_V1, v: 2, payload: { ...(QUEUE_V1.payload as object), webSearch: null } });
    expect(() => upcast({ ...QUEUE_V1, payload: 'queued' })).toThrow(/queue.messageAdded v1: payload must be an object/);
  });

  it('a v2 event with a bad depth is refused on validation', () => {
    const v2: RawEvent = { ...QUEUE_V1, v: 2, payload: { ...(QUEUE_V1.payload as object), webSearch: { depth: 'wide' } } };
    expect(() => upcast(v2, { validate: true })).toThrow(/payload.webSearch/);
    expect(() => upcast({ ...v2, payload: { ...(v2.payload as object), webSearch: { depth: 'deep' } } }, { validate: true })).not.toThrow();
  });

  it('replays a log holding both versions to one queue: the old entry without search, the new one with its depth', () => {
    const v2: RawEvent = {
      seq: 13,
      type: 'queue.messageAdded',
      v: 2,
      id: 'queued-new',
      at: 1_763_800_000_500,
      payload: {
        conversationSlug: 'q-old',
        message: { id: 'qm-new', prompt: 'search this', attachments: [], scrapedUrls: [], scrapedContent: [], timestamp: 1_763_800_000_500 },
        model: 'gpt-4',
        extraModels: [],
        webSearch: { depth: 'deep' },
        at: 1_763_800_000_500,
      },
    };
    const text = encodeLog([QUEUE_V1, v2], { exportedAt: 1_763_800_001_000 });
    const queue = foldQueue(decodeLog(text).events).get('q-old') ?? [];
    expect(queue.map((q) => [q.message.id, q.webSearch, q.extraModels])).toEqual([
      ['qm-old', null, ['claude']],
      ['qm-new', { depth: 'deep' }, []],
    ]);
  });
});
