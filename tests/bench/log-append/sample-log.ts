/**
 * A realistic, deterministic event log for benchmarks and tests: conversations, user messages, pending assistant
 * messages, replies started / checkpointed / completed, some failures (with and without a partial reply) and some
 * interruptions. Seeded PRNG, so the same options give the same log everywhere (Node, Chromium).
 */
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, MessageRow } from '../../../src/events/model';
import type { ChatPart } from '../../../src/protocol/api';

export interface SampleLogOptions {
  /** Stop once at least this many events were generated (the last turn is completed). */
  events: number;
  /** Conversations open at a time; a new one replaces a finished one now and then. */
  activeConversations?: number;
  seed?: number;
  /** Milliseconds of the first event. */
  startAt?: number;
  /** Fraction of user messages stored with a seconds timestamp (legacy import). */
  secondsTimestamps?: number;
}

import { mulberry32 } from '../fixtures/random';

export { mulberry32 };

const WORDS = (
  'the a model reply message conversation token stream branch context memory image video audio voice prompt ' +
  'balance nano wallet deposit library file folder scratchpad system user assistant quickly carefully because ' +
  'therefore however function const let return async await promise array object string number value index ' +
  'database event log projection replay upgrade version schema table query result error retry reload worker'
).split(' ');

export function sampleText(rand: () => number, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(rand() * (maxChars - minChars));
  let s = '';
  while (s.length < target) {
    s += (s === '' ? '' : rand() < 0.08 ? '. ' : ' ') + (WORDS[Math.floor(rand() * WORDS.length)] as string);
  }
  return s;
}

export const SAMPLE_MODELS = ['chatgpt-4o-latest', 'claude-sonnet', 'gemini-flash', 'deepseek-r1', 'llama-70b'];

export function sampleMessage(fields: Partial<MessageRow> & Pick<MessageRow, 'id' | 'conversationSlug' | 'timestamp' | 'role'>): MessageRow {
  return {
    prompt: '',
    model: 'chatgpt-4o-latest',
    status: 'done',
    parentMessageId: null,
    alternativeGroup: null,
    branchIndex: 0,
    isActiveBranch: true,
    branchDepth: 0,
    updatedAt: fields.timestamp,
    ...fields,
  };
}

interface OpenConversation {
  slug: string;
  lastMessageId: number | null;
  turns: number;
  maxTurns: number;
  model: string;
}

export function generateSampleLog(options: SampleLogOptions): NewEvent[] {
  const rand = mulberry32(options.seed ?? 42);
  const active = options.activeConversations ?? 20;
  const secondsFraction = options.secondsTimestamps ?? 0;
  let at = options.startAt ?? 1_700_000_000_000;
  let conversationId = 0;
  let messageId = 0;
  let eventNo = 0;
  const out: NewEvent[] = [];
  const id = () => `ev-${(++eventNo).toString(36)}`;
  const tick = (maxMs: number) => (at += 1 + Math.floor(rand() * maxMs));
  const open: OpenConversation[] = [];

  const newConversation = (): OpenConversation => {
    conversationId++;
    const slug = `conv-${conversationId}-${Math.floor(rand() * 1e6).toString(36)}`;
    const name = sampleText(rand, 10, 60);
    const conversation: ConversationRow = {
      id: conversationId,
      uuid: `uuid-${conversationId}`,
      slug,
      name,
      createdAt: tick(60_000),
      updatedAt: at,
      latestMessage: '',
      isMediaOnly: false,
    };
    out.push(makeEvent('conversation.created', { conversation }, id(), at));
    return { slug, lastMessageId: null, turns: 0, maxTurns: 2 + Math.floor(rand() * 40), model: SAMPLE_MODELS[Math.floor(rand() * SAMPLE_MODELS.length)] as string };
  };

  while (out.length < options.events) {
    if (open.length < active) open.push(newConversation());
    const ci = Math.floor(rand() * open.length);
    const conv = open[ci] as OpenConversation;
    // user message
    const userId = ++messageId;
    tick(120_000);
    const userText = sampleText(rand, 20, 400);
    const prompt: string | ChatPart[] =
      rand() < 0.05 ? [{ type: 'text', text: userText }, { type: 'image_url', image_url: { url: `data:image/png;base64,AAAA${userId}` } }] : userText;
    const ts = rand() < secondsFraction ? Math.floor(at / 1000) : at;
    out.push(
      makeEvent(
        'message.added',
        { message: sampleMessage({ id: userId, conversationSlug: conv.slug, timestamp: ts, updatedAt: at, role: 'user', prompt, model: conv.model, parentMessageId: conv.lastMessageId, branchDepth: conv.turns * 2 }) },
        id(),
        at,
      ),
    );
    // pending assistant message
    const botId = ++messageId;
    tick(50);
    out.push(
      makeEvent(
        'message.added',
        { message: sampleMessage({ id: botId, conversationSlug: conv.slug, timestamp: at, role: 'assistant', prompt: '', model: conv.model, status: 'pending', parentMessageId: userId, branchDepth: conv.turns * 2 + 1 }) },
        id(),
        at,
      ),
    );
    tick(400);
    out.push(makeEvent('reply.started', { messageId: botId, conversationSlug: conv.slug, model: conv.model, requestId: `req-${botId}-${eventNo}`, at }, id(), at));
    const full = sampleText(rand, 80, 2000);
    const thinking = rand() < 0.3 ? sampleText(rand, 50, 600) : '';
    const checkpoints = Math.floor(rand() * 4);
    for (let k = 1; k <= checkpoints; k++) {
      tick(3000);
      const upto = Math.floor((full.length * k) / (checkpoints + 1));
      out.push(makeEvent('reply.checkpointed', { messageId: botId, conversationSlug: conv.slug, text: full.slice(0, upto), thinking, at }, id(), at));
    }
    tick(5000);
    const r = rand();
    if (r < 0.9) {
      out.push(
        makeEvent(
          'reply.completed',
          { messageId: botId, conversationSlug: conv.slug, text: full, thinking, cost: Math.round(rand() * 5000) / 1e6, paymentSource: rand() < 0.8 ? 'USD' : 'nano', outputTokens: Math.floor(full.length / 4), at },
          id(),
          at,
        ),
      );
      conv.lastMessageId = botId;
    } else if (r < 0.96) {
      const keepPartial = rand() < 0.5;
      const partial = keepPartial ? full.slice(0, Math.floor(full.length / 3)) : '';
      out.push(
        makeEvent(
          'reply.failed',
          { messageId: botId, userMessageId: userId, conversationSlug: conv.slug, error: 'Upstream stream stalled', keepPartial, text: partial, thinking: '', cost: 0, paymentSource: null, at },
          id(),
          at,
        ),
      );
      conv.lastMessageId = keepPartial ? botId : userId;
    } else {
      out.push(makeEvent('reply.interrupted', { messageId: botId, conversationSlug: conv.slug, reason: 'The tab running this reply was closed', at }, id(), at));
      conv.lastMessageId = botId;
    }
    conv.turns++;
    if (conv.turns >= conv.maxTurns) open.splice(ci, 1);
  }
  return out;
}
