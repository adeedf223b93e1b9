/**
 * Each event is declared once (src/events/define.ts): the catalogue, validation, upcasting and the worker's change
 * notices read the declarations, and a projection lists only the events it handles. The `@ts-expect-error` lines are
 * checked by `npm run typecheck`: each says a mistake the types must refuse.
 */
import { describe, expect, it } from 'vitest';
import { CURRENT_VERSION, declarationOf, EVENTS, joinDomains, makeEvent } from '../../../src/events/catalogue';
import type { EventPayloads } from '../../../src/events/catalogue';
import { int, str } from '../../../src/events/checks';
import { defineEvent, NOTHING, page, shape } from '../../../src/events/define';
import { conversationsProjection } from '../../../src/projections/conversations';
import { fold } from '../../../src/projections/fold';
import { messagesProjection } from '../../../src/projections/messages';
import { defineProjection, dispatchOf } from '../../../src/projections/projection';
import { projections } from '../../../src/projections/registry';
import { changeOf } from '../../../src/worker/changes';
import { sampleMessage } from '../../bench/log-append/sample-log';

const T0 = 1_700_000_000_000;
const probe = defineEvent({ version: 1, payload: shape<{ slug: string }>({ slug: str }), touches: (p) => page(p.slug) });

describe('event declarations', () => {
  it('are joined by name, and a name declared in two domains is refused', () => {
    expect(joinDomains([{ 'a.one': probe }, { 'a.two': probe }]).size).toBe(2);
    expect(() => joinDomains([{ 'a.one': probe }, { 'a.one': probe }])).toThrow("event 'a.one' is declared twice");
  });

  it('give the catalogue its types and versions (54 events; message.added and queue.messageAdded at version 2)', () => {
    expect(Object.keys(EVENTS)).toHaveLength(54);
    expect(Object.keys(CURRENT_VERSION).sort()).toEqual(Object.keys(EVENTS).sort());
    expect(Object.entries(CURRENT_VERSION).filter(([, v]) => v !== 1).map(([t]) => t).sort()).toEqual(['message.added', 'queue.messageAdded']);
    expect(makeEvent('conversation.purged', { slug: 's', at: 1 }, 'e', 1).v).toBe(1);
    expect(declarationOf('toString')).toBeUndefined();
    expect(declarationOf('nope')).toBeUndefined();
  });

  it('say what an append changes for the live queries', () => {
    const msg = sampleMessage({ id: 1, conversationSlug: 'c', timestamp: T0, role: 'user', prompt: 'hi' });
    const cases: [Parameters<typeof changeOf>[0][number], boolean, string[]][] = [
      [makeEvent('message.added', { message: msg }, 'e1', T0), true, ['c']],
      [makeEvent('reply.started', { messageId: 1, conversationSlug: 'c', model: 'm', requestId: 'r', at: T0 }, 'e2', T0), false, ['c']],
      // A checkpoint saves text the page already shows live.
      [makeEvent('reply.checkpointed', { messageId: 1, conversationSlug: 'c', text: 't', thinking: '', at: T0 }, 'e3', T0), false, []],
      [makeEvent('folder.deleted', { id: 1, folderIds: [1], at: T0 }, 'e4', T0), true, []],
      [makeEvent('library.messageLinked', { conversationSlug: 'd', links: [], at: T0 }, 'e5', T0), false, ['d']],
      [makeEvent('instruction.deleted', { id: 1, at: T0 }, 'e6', T0), false, []],
    ];
    for (const [event, list, slugs] of cases) {
      const c = changeOf([event]);
      expect({ type: event.type, list: c.conversations, slugs: [...c.slugs] }).toEqual({ type: event.type, list, slugs });
    }
  });
});

describe('projections', () => {
  it('dispatch each event only to the materializers that handle it, in projection order', () => {
    const dispatch = dispatchOf(projections);
    expect(dispatch.get('message.added')).toEqual([conversationsProjection.materializers['message.added'], messagesProjection.materializers['message.added']]);
    expect(dispatch.get('preferences.changed')).toBeUndefined();
    expect(dispatchOf(projections)).toBe(dispatch);
    expect(messagesProjection.apply(makeEvent('preferences.changed', { changes: { theme: 'light' }, at: T0 }, 'p', T0))).toEqual([]);
  });

  it('fold through a projection made of materializers, skipping events it does not list', () => {
    const seen: string[] = [];
    const spy = defineProjection({
      name: 'spy',
      version: 1,
      tables: ['conversations'],
      materializers: {
        'conversation.purged': (p, event) => {
          seen.push(`${p.slug}@${event.at}`);
          return [];
        },
      },
    });
    fold([makeEvent('conversation.deleted', { slug: 'a', at: 1 }, 'd', 1), makeEvent('conversation.purged', { slug: 'a', at: 2 }, 'p', 2)], [spy]);
    expect(seen).toEqual(['a@2']);
  });
});

describe('the types', () => {
  it('refuse a misspelt event, a mistyped payload, a missing upcaster and a payload field without a check', () => {
    defineProjection({
      name: 'typos',
      version: 1,
      tables: ['messages'],
      materializers: {
        // @ts-expect-error: no event is called 'mesage.added'
        'mesage.added': () => [],
        'message.added': (p) => {
          // @ts-expect-error: a message id is a number
          const id: string = p.message.id;
          return id === '' ? [] : [];
        },
      },
    });
    // @ts-expect-error: version 2 needs the upcaster from version 1
    defineEvent({ version: 2, payload: shape<{ a: number }>({ a: int }), touches: () => NOTHING });
    // @ts-expect-error: version 3 needs upcasters from 1 and from 2
    defineEvent({ version: 3, payload: shape<{ a: number }>({ a: int }), touches: () => NOTHING, upcasters: { 1: (p) => p } });
    // @ts-expect-error: field b has no check
    defineEvent({ version: 1, payload: shape<{ a: number; b: number }>({ a: int }), touches: () => NOTHING });
    // @ts-expect-error: the payload type comes from the declaration's schema
    const bad: EventPayloads['reply.started'] = { messageId: 1 };
    expect(bad).toEqual({ messageId: 1 });
  });
});
