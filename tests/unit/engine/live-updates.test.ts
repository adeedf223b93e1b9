/**
 * The conversation page as updates (the conversationUpdates query): a whole view when the read model changes or a
 * reply starts or ends, and between them only the streaming reply's text, so that a reply streaming into a long
 * conversation does not clone the conversation to the tabs on every publish.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { MessageRow } from '../../../src/events/model';
import type { ConversationUpdate, ConversationView } from '../../../src/protocol/engine';
import { applyConversationUpdate } from '../../../src/protocol/conversation-updates';
import { CHECKPOINT_INTERVAL_MS } from '../../../src/worker/rooms/replies/reply-runner';
import { FIRST_VIEW_MESSAGES } from '../../../src/worker/rooms/conversations/queries';
import { firstValueFrom, take, toArray } from 'rxjs';
import { textReply } from '../server/fake-upstream';
import { until, useEngineStack } from './harness';

const WORDS = 45;
const stack = useEngineStack(() => textReply(Array.from({ length: WORDS }, (_, i) => `w${i + 1}`).join(' '), { delayMs: 60 }), ['slow-model']);

function history(slug: string, count: number): NewEvent[] {
  const at = 1_700_000_000_000;
  const events: NewEvent[] = [
    makeEvent('conversation.created', { conversation: { id: 1, uuid: 'u-1', slug, name: 'Long', createdAt: at, updatedAt: at, latestMessage: '', isMediaOnly: false } }, 'c-1', at),
  ];
  for (let i = 1; i <= count; i++) {
    const message: MessageRow = {
      id: 1 + i,
      conversationSlug: slug,
      timestamp: at + i,
      role: i % 2 ? 'user' : 'assistant',
      prompt: `message ${i}`,
      model: 'slow-model',
      status: 'done',
      parentMessageId: i === 1 ? null : i,
      alternativeGroup: null,
      branchIndex: 0,
      isActiveBranch: true,
      branchDepth: 0,
      updatedAt: at + i,
    };
    events.push(makeEvent('message.added', { message }, `m-${i}`, at + i));
  }
  return events;
}

describe('conversation updates', () => {
  it('sends whole views around a streaming reply and only its text in between, checkpoints included', async () => {
    const engine = stack.engine('live-updates');
    await engine.whenStarted();
    await engine.append(history('long', FIRST_VIEW_MESSAGES));
    const updates: ConversationUpdate[] = [];
    const subscription = engine.observe({ kind: 'conversationUpdates', slug: 'long' }).subscribe((u) => updates.push(structuredClone(u)));
    await until(engine.observe({ kind: 'conversationUpdates', slug: 'long' }), (u: ConversationUpdate) => u.kind === 'view');
    const sent = await engine.sendMessage({ slug: 'long', prompt: 'go on', model: 'slow-model' });
    if (!sent.ok) throw new Error(sent.error);
    const finished = await until<ConversationView>(engine.observe({ kind: 'conversation', slug: 'long' }), (v) => !v.pending && v.messages.at(-1)?.status === 'done');
    subscription.unsubscribe();

    // The reply took longer than a checkpoint interval, so the log has a checkpoint...
    expect(WORDS * 60).toBeGreaterThan(CHECKPOINT_INTERVAL_MS);
    expect(await engine.exportLog()).toContain('"reply.checkpointed"');
    const reply = finished.messages.at(-1) as ConversationView['messages'][number];
    expect(reply.text.split(' ')).toHaveLength(WORDS);
    // ...yet between the first and the last live update no whole view was sent.
    const kinds = updates.map((u) => u.kind);
    // No more messages than a first view holds: the page is whole at once.
    expect(updates[0]?.kind === 'view' && updates[0].view?.messages.length === FIRST_VIEW_MESSAGES && updates[0].view.partial === undefined).toBe(true);
    const firstLive = kinds.indexOf('live');
    const lastLive = kinds.lastIndexOf('live');
    expect(firstLive).toBeGreaterThan(0);
    expect(lastLive - firstLive).toBeGreaterThan(5);
    expect(kinds.slice(firstLive, lastLive + 1).every((k) => k === 'live')).toBe(true);
    // Each live update carries the streaming reply alone, never the messages before it.
    for (const u of updates) if (u.kind === 'live') expect(u.messages.map((m) => m.id)).toEqual([reply.id]);
    // A whole view ends it, and folding the updates gives what the page query gives.
    expect(kinds.at(-1)).toBe('view');
    const folded = updates.reduce<ConversationView | null | undefined>((v, u) => applyConversationUpdate(v, u), undefined);
    expect(folded).toEqual(finished);
    expect(folded?.messages).toHaveLength(FIRST_VIEW_MESSAGES + 2);
  });
});

describe('a long conversation opens with its newest messages', () => {
  it('sends the newest messages first (partial), then the whole page; the one-view query waits for the whole', async () => {
    const engine = stack.engine('live-tail');
    await engine.whenStarted();
    await engine.append(history('long', 1000));
    const first = await firstValueFrom(engine.observe({ kind: 'conversationUpdates', slug: 'long' }).pipe(take(2), toArray()));
    const [partial, whole] = first.map((u) => (u.kind === 'view' ? u.view : null));
    expect(partial?.partial).toBe(true);
    expect(partial?.messages.map((m) => m.text)).toEqual(Array.from({ length: FIRST_VIEW_MESSAGES }, (_, i) => `message ${1000 - FIRST_VIEW_MESSAGES + 1 + i}`));
    expect(whole?.partial).toBeUndefined();
    expect(whole?.messages).toHaveLength(1000);
    const view = await firstValueFrom(engine.observe({ kind: 'conversation', slug: 'long' }));
    expect(view?.messages).toHaveLength(1000);
  });
});

describe('applyConversationUpdate', () => {
  const base = (): ConversationView => ({
    conversation: { id: 1, uuid: 'u', slug: 's', name: 'n', createdAt: 0, updatedAt: 0, latestMessage: '', isMediaOnly: false },
    messages: [1, 2, 3].map((id) => ({ id, conversationSlug: 's', timestamp: id, role: 'assistant' as const, prompt: '', text: `t${id}`, model: 'm', status: 'done' as const, parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: id })),
    pending: true,
    queue: [],
  });

  it('replaces only the live messages; the others keep their objects', () => {
    const view = base();
    const next = applyConversationUpdate(view, { kind: 'live', messages: [{ id: 3, text: 'more', thinking: 'hm', status: 'streaming' }] });
    expect(next?.messages[2]).toMatchObject({ id: 3, text: 'more', thinking: 'hm', status: 'streaming' });
    expect(next?.messages[0]).toBe(view.messages[0]);
    expect(next?.messages[1]).toBe(view.messages[1]);
    expect(view.messages[2]?.text).toBe('t3');
  });

  it('ignores a live update before any view, for a message not shown, or that changes nothing; a view replaces all', () => {
    const view = base();
    expect(applyConversationUpdate(undefined, { kind: 'live', messages: [{ id: 3, text: 'x', thinking: '', status: 'streaming' }] })).toBeUndefined();
    expect(applyConversationUpdate(view, { kind: 'live', messages: [{ id: 9, text: 'x', thinking: '', status: 'streaming' }] })).toBe(view);
    const once = applyConversationUpdate(view, { kind: 'live', messages: [{ id: 3, text: 'x', thinking: '', status: 'streaming' }] });
    expect(applyConversationUpdate(once, { kind: 'live', messages: [{ id: 3, text: 'x', thinking: '', status: 'streaming' }] })).toBe(once);
    expect(applyConversationUpdate(once, { kind: 'view', view: null })).toBeNull();
  });
});
