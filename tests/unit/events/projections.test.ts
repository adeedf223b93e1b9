import { describe, expect, it } from 'vitest';
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, MessageRow } from '../../../src/events/model';
import { conversationsProjection } from '../../../src/projections/conversations';
import { fold, readModels } from '../../../src/projections/fold';
import { messagesProjection } from '../../../src/projections/messages';
import { firstChars, promptText } from '../../../src/projections/projection';
import { ownedTables, projections } from '../../../src/projections/registry';
import { sampleMessage } from '../../bench/log-append/sample-log';

const T0 = 1_700_000_000_000;
const SLUG = 'hello-world';
let n = 0;
const id = () => `e${++n}`;

const conversation: ConversationRow = {
  id: 1, uuid: 'u-1', slug: SLUG, name: 'Hello world', createdAt: T0, updatedAt: T0, latestMessage: '', isMediaOnly: false,
};
const created = makeEvent('conversation.created', { conversation }, id(), T0);
const user = sampleMessage({ id: 10, conversationSlug: SLUG, timestamp: T0 + 1000, role: 'user', prompt: 'What is the answer?' });
const pending = sampleMessage({ id: 11, conversationSlug: SLUG, timestamp: T0 + 1001, role: 'assistant', prompt: '', status: 'pending', parentMessageId: 10 });
const base: NewEvent[] = [
  created,
  makeEvent('message.added', { message: user }, id(), T0 + 1000),
  makeEvent('message.added', { message: pending }, id(), T0 + 1001),
];
const started = makeEvent('reply.started', { messageId: 11, conversationSlug: SLUG, model: 'm', requestId: 'req-00000011', at: T0 + 1100 }, id(), T0 + 1100);
const checkpoint = makeEvent('reply.checkpointed', { messageId: 11, conversationSlug: SLUG, text: 'Forty', thinking: 'hmm', at: T0 + 2000 }, id(), T0 + 2000);

const stateOf = (events: NewEvent[]) => {
  const s = fold(events);
  return { conv: s.get('conversations', 1) as ConversationRow, user: s.get('messages', 10) as MessageRow, bot: s.get('messages', 11), store: s };
};

describe('projections registry', () => {
  it('lists conversations, messages, instructions, the scratchpad, folders and the library, each owning its own tables', () => {
    expect(projections.map((p) => p.name)).toEqual(['conversations', 'messages', 'instructions', 'scratchpad', 'folders', 'library']);
    expect(ownedTables()).toEqual(['conversations', 'messages', 'instructions', 'scratchpadEntries', 'folders', 'conversationFolders', 'library', 'libraryConversations', 'messageLibrary']);
    for (const p of projections) {
      for (const e of [...base, started, checkpoint]) for (const w of p.apply(e)) expect(p.tables).toContain(w.table);
    }
  });
});

describe('conversation.created', () => {
  it('puts the conversation row', () => {
    expect(conversationsProjection.apply(created)).toEqual([{ op: 'put', table: 'conversations', row: conversation }]);
    expect(messagesProjection.apply(created)).toEqual([]);
    expect(stateOf([created]).conv).toEqual(conversation);
  });
});

describe('message.added', () => {
  it('puts the message and touches the conversation (updatedAt = message timestamp, latestMessage = text)', () => {
    const { conv, user: u, bot } = stateOf(base);
    expect(u).toEqual(user);
    expect(bot).toEqual(pending);
    // The empty pending assistant message moves updatedAt but does not blank the preview.
    expect(conv.updatedAt).toBe(T0 + 1001);
    expect(conv.latestMessage).toBe('What is the answer?');
  });

  it('normalises a seconds timestamp in the row and in updatedAt', () => {
    const secs = sampleMessage({ id: 20, conversationSlug: SLUG, timestamp: 1_700_000_500, role: 'user', prompt: 'old' });
    const { store } = stateOf([created, makeEvent('message.added', { message: secs }, id(), T0)]);
    expect(store.get('messages', 20)?.timestamp).toBe(1_700_000_500_000);
    expect(store.get('conversations', 1)?.updatedAt).toBe(1_700_000_500_000);
  });

  it('latestMessage is the first 100 characters of the text prompt (text parts of a multi-part prompt)', () => {
    const long = 'x'.repeat(150);
    const parts = sampleMessage({
      id: 21, conversationSlug: SLUG, timestamp: T0 + 5, role: 'user',
      prompt: [{ type: 'image_url', image_url: { url: 'data:,' } }, { type: 'text', text: long }],
    });
    const { conv } = stateOf([created, makeEvent('message.added', { message: parts }, id(), T0 + 5)]);
    expect(conv.latestMessage).toBe('x'.repeat(100));
  });

  it('does not touch another conversation', () => {
    const other = sampleMessage({ id: 22, conversationSlug: 'other', timestamp: T0 + 9, role: 'user', prompt: 'elsewhere' });
    const { conv } = stateOf([created, makeEvent('message.added', { message: other }, id(), T0 + 9)]);
    expect(conv).toEqual(conversation);
  });
});

describe('reply lifecycle', () => {
  it('reply.started marks the assistant message streaming', () => {
    const { bot } = stateOf([...base, started]);
    expect(bot).toMatchObject({ status: 'streaming', requestId: 'req-00000011', updatedAt: T0 + 1100, prompt: '' });
  });

  it('reply.checkpointed stores the text and thinking so far', () => {
    const { bot, conv } = stateOf([...base, started, checkpoint]);
    expect(bot).toMatchObject({ status: 'streaming', prompt: 'Forty', thinking: 'hmm', updatedAt: T0 + 2000 });
    expect(conv.latestMessage).toBe('What is the answer?');
  });

  it('reply.completed finishes the message and updates the conversation preview', () => {
    const done = makeEvent(
      'reply.completed',
      { messageId: 11, conversationSlug: SLUG, text: 'Forty-two.', thinking: 'hmm!', cost: 0.0012, paymentSource: 'USD', outputTokens: 4, inputTokens: 9, at: T0 + 3000 },
      id(),
      T0 + 3000,
    );
    const { bot, conv } = stateOf([...base, started, checkpoint, done]);
    expect(bot).toEqual({
      ...pending, requestId: 'req-00000011', prompt: 'Forty-two.', thinking: 'hmm!', status: 'done', cost: 0.0012, paymentSource: 'USD', outputTokens: 4, inputTokens: 9, updatedAt: T0 + 3000,
    });
    expect(conv).toMatchObject({ updatedAt: T0 + 3000, latestMessage: 'Forty-two.' });
  });

  it('reply.completed without payment source or token count leaves them unset', () => {
    const done = makeEvent(
      'reply.completed',
      { messageId: 11, conversationSlug: SLUG, text: 'ok', thinking: '', cost: 0, paymentSource: null, outputTokens: null, at: T0 + 3000 },
      id(),
      T0 + 3000,
    );
    const { bot } = stateOf([...base, done]);
    expect(bot).not.toHaveProperty('paymentSource');
    expect(bot).not.toHaveProperty('outputTokens');
    // An event from before inputTokens was recorded (no field) leaves it unset too.
    expect(bot).not.toHaveProperty('inputTokens');
  });

  it('reply.completed of a stopped reply marks the message stopped; a continuation clears the mark', () => {
    const stopped = makeEvent(
      'reply.completed',
      { messageId: 11, conversationSlug: SLUG, text: 'Forty', thinking: '', cost: 0, paymentSource: null, outputTokens: 2, stopped: true, at: T0 + 3000 },
      id(),
      T0 + 3000,
    );
    expect(stateOf([...base, started, stopped]).bot).toMatchObject({ status: 'done', prompt: 'Forty', stopped: true });
    // An older event (no field) and a whole reply (false) leave no mark.
    const whole = makeEvent('reply.completed', { messageId: 11, conversationSlug: SLUG, text: 'Forty-two.', thinking: '', cost: 0, paymentSource: null, outputTokens: 4, stopped: false, at: T0 + 3000 }, id(), T0 + 3000);
    expect(stateOf([...base, started, whole]).bot).not.toHaveProperty('stopped');
    const continued = makeEvent('reply.continued', { messageId: 11, conversationSlug: SLUG, model: 'm', requestId: 'req-2', text: 'Forty', thinking: '', at: T0 + 4000 }, id(), T0 + 4000);
    const finished = makeEvent('reply.completed', { messageId: 11, conversationSlug: SLUG, text: 'Forty-two.', thinking: '', cost: 0, paymentSource: null, outputTokens: 4, at: T0 + 5000 }, id(), T0 + 5000);
    expect(stateOf([...base, started, stopped, continued]).bot).not.toHaveProperty('stopped');
    expect(stateOf([...base, started, stopped, continued, finished]).bot).not.toHaveProperty('stopped');
  });

  it('reply.failed without a partial marks the user message and deletes the pending message', () => {
    const failed = makeEvent(
      'reply.failed',
      { messageId: 11, userMessageId: 10, conversationSlug: SLUG, error: 'Boom', keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at: T0 + 4000 },
      id(),
      T0 + 4000,
    );
    const { user: u, bot, conv } = stateOf([...base, started, checkpoint, failed]);
    expect(u).toEqual({ ...user, hasError: true, error: 'Boom', status: 'error', updatedAt: T0 + 4000 });
    expect(bot).toBeUndefined();
    expect(conv.latestMessage).toBe('What is the answer?');
  });

  it('reply.failed keeping the partial reply keeps its text as a finished partial message', () => {
    const failed = makeEvent(
      'reply.failed',
      { messageId: 11, userMessageId: 10, conversationSlug: SLUG, error: 'Stalled', keepPartial: true, text: 'Forty-t', thinking: 'hm', cost: 0.0005, paymentSource: 'nano', at: T0 + 4000 },
      id(),
      T0 + 4000,
    );
    const { user: u, bot } = stateOf([...base, started, checkpoint, failed]);
    expect(u).toMatchObject({ hasError: true, error: 'Stalled', status: 'error' });
    expect(bot).toEqual({
      ...pending, requestId: 'req-00000011', prompt: 'Forty-t', thinking: 'hm', isPartial: true, status: 'done', cost: 0.0005, paymentSource: 'nano', updatedAt: T0 + 4000,
    });
  });

  it('reply.interrupted marks the message as an interrupted error and keeps its checkpointed text', () => {
    const interrupted = makeEvent('reply.interrupted', { messageId: 11, conversationSlug: SLUG, reason: 'Tab closed', at: T0 + 5000 }, id(), T0 + 5000);
    const { bot, user: u } = stateOf([...base, started, checkpoint, interrupted]);
    expect(bot).toMatchObject({ status: 'error', interrupted: true, error: 'Tab closed', prompt: 'Forty', thinking: 'hmm', updatedAt: T0 + 5000 });
    expect(u).toEqual(user);
  });

  it('a reply event for an unknown message changes nothing', () => {
    const stray = makeEvent('reply.started', { messageId: 999, conversationSlug: SLUG, model: 'm', requestId: 'req-00000999', at: T0 }, id(), T0);
    expect(stateOf([...base, stray]).store.rows('messages')).toEqual([user, pending]);
  });
});

describe('readModels', () => {
  it('groups messages under conversations, most recent first, messages in time order', () => {
    const c2: ConversationRow = { ...conversation, id: 2, slug: 'second', updatedAt: T0 + 10 };
    const late = sampleMessage({ id: 30, conversationSlug: 'second', timestamp: T0 + 9000, role: 'user', prompt: 'late' });
    const orphan = sampleMessage({ id: 31, conversationSlug: 'ghost', timestamp: T0, role: 'user', prompt: 'lost' });
    const models = readModels(
      fold([...base, makeEvent('conversation.created', { conversation: c2 }, id(), T0), makeEvent('message.added', { message: late }, id(), T0), makeEvent('message.added', { message: orphan }, id(), T0)]),
    );
    expect(models.conversations.map((c) => [c.conversation.slug, c.messages.map((m) => m.id)])).toEqual([
      ['second', [30]],
      [SLUG, [10, 11]],
    ]);
    expect(models.orphanMessages.map((m) => m.id)).toEqual([31]);
  });
});

describe('text helpers', () => {
  it('promptText joins the text parts', () => {
    expect(promptText([{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'u' } }, { type: 'text', text: 'b' }])).toBe('a b');
  });
  it('firstChars never cuts a surrogate pair', () => {
    const s = `${'a'.repeat(99)}😀tail`;
    expect(firstChars(s, 100)).toBe(`${'a'.repeat(99)}😀`);
    expect(firstChars('short', 100)).toBe('short');
  });
});
