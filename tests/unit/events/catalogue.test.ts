import { describe, expect, it } from 'vitest';
import { CURRENT_VERSION, makeEvent } from '../../../src/events/catalogue';
import type { EventType } from '../../../src/events/catalogue';
import { normalizeTimestamp } from '../../../src/events/model';
import { upcasters } from '../../../src/events/upcasters';

describe('makeEvent', () => {
  it('stamps the current version of the type and keeps id, at and payload', () => {
    const payload = { messageId: 3, conversationSlug: 's', model: 'm', requestId: 'req-12345678', at: 5 };
    const e = makeEvent('reply.started', payload, 'id-1', 5);
    expect(e).toEqual({ type: 'reply.started', v: 1, id: 'id-1', at: 5, payload });
    expect(e.payload).toBe(payload);
  });

  it('uses version 2 for message.added (the branch shape)', () => {
    expect(CURRENT_VERSION['message.added']).toBe(2);
  });

  it('has an upcaster for every version below the current one', () => {
    for (const type of Object.keys(CURRENT_VERSION) as EventType[]) {
      for (let v = 1; v < CURRENT_VERSION[type]; v++) expect(upcasters[type][v], `${type} v${v}`).toBeTypeOf('function');
    }
  });
});

describe('normalizeTimestamp', () => {
  it.each([
    [1_700_000_000, 1_700_000_000_000],
    [1_700_000_000_123, 1_700_000_000_123],
    [999_999_999_999, 999_999_999_999_000],
    [1_000_000_000_000, 1_000_000_000_000],
    [1_700_000_000.5, 1_700_000_000_500],
    [0, 0],
    [-5, -5],
  ])('%d -> %d', (input, expected) => {
    expect(normalizeTimestamp(input)).toBe(expected);
  });
  it('leaves non-finite values alone', () => {
    expect(normalizeTimestamp(Number.NaN)).toBeNaN();
  });
});
