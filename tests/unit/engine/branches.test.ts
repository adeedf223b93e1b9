/**
 * The message tree in the engine, case by case (spec 000 section 4 branches, section 8 notices; issue 6 items 4,
 * 5, 6 and 12): alternatives, the limit of 10, switching, delete, edit, retry, duplicate and Continue, on
 * fake-indexeddb against the in-process gateway and a fake upstream.
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import type { ConversationView, MessageView, Notice } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { ParleyDB } from '../../../src/worker/db/schema';
import { Engine } from '../../../src/worker/engine';
import { readLog } from '../../../src/worker/log';
import { decodeLog } from '../../../src/events/codec';
import { fold } from '../../../src/projections/fold';
import { startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { fetchThrough } from './harness';

function slowReply(words: number, delayMs: number): ReturnType<typeof textReply> {
  return textReply(Array.from({ length: words }, (_, i) => `word${i + 1}`).join(' '), { delayMs, usage: { prompt_tokens: 5, completion_tokens: words } });
}

let upstream: FakeUpstream;
let gateway: RunningGateway;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  upstream = await startFakeUpstream(textReply('First answer.'), { models: ['fake-model'] });
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: { PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' },
  });
  globalThis.fetch = fetchThrough(gateway.url, realFetch);
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await upstream?.close();
});

const engines: Engine[] = [];
let counter = 0;
interface Harness {
  engine: Engine;
  dbName: string;
  notices: () => string[];
}
function newEngine(): Harness {
  const dbName = `branches-${++counter}`;
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
  engines.push(engine);
  const seen: string[] = [];
  engine.observe({ kind: 'notices' }).subscribe((n) => {
    for (const x of n as Notice[]) if (!seen.includes(`${x.id}|${x.title}`)) seen.push(`${x.id}|${x.title}`);
  });
  return { engine, dbName, notices: () => seen.map((s) => s.split('|')[1] as string) };
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
});

function view(engine: Engine, slug: string, until: (v: ConversationView) => boolean): Promise<ConversationView> {
  return firstValueFrom(
    (engine.observe({ kind: 'conversation', slug }) as Observable<ConversationView | null>).pipe(filter((v): v is ConversationView => v !== null && until(v))),
  );
}
const settled = (v: ConversationView) => !v.pending && v.messages.every((m) => m.status === 'done' || m.status === 'error');
const texts = (v: ConversationView) => v.messages.map((m) => m.text);

async function eventTypes(dbName: string): Promise<string[]> {
  const db = new ParleyDB(dbName);
  const log = await readLog(db);
  db.close();
  return log.map((e) => e.type);
}

/** A conversation with one exchange: 'Question?' answered with `answer`. */
async function started(h: Harness, answer = 'First answer.'): Promise<{ slug: string; view: ConversationView }> {
  upstream.setScript(textReply(answer));
  const r = await h.engine.sendMessage({ slug: null, prompt: 'Question?', model: 'fake-model' });
  if (!r.ok) throw new Error(r.error);
  return { slug: r.slug, view: await view(h.engine, r.slug, (v) => settled(v) && v.messages.length === 2) };
}

function reply(v: ConversationView): MessageView {
  return v.messages.find((m) => m.role === 'assistant') as MessageView;
}

describe('alternatives (Regenerate)', () => {
  it('turns the original into branch 0, not active, and makes the new one active once stored', async () => {
    const h = newEngine();
    const { slug, view: before } = await started(h);
    const original = reply(before);
    upstream.setScript(textReply('Second answer.'));
    const result = await h.engine.regenerate(slug, original.id);
    if (!result.ok) throw new Error(result.error);
    const after = await view(h.engine, slug, (v) => settled(v) && reply(v).text === 'Second answer.');
    expect(texts(after)).toEqual(['Question?', 'Second answer.']);
    expect(reply(after).alternatives).toEqual({ index: 2, count: 2 });
    expect(reply(after)).toMatchObject({ branchIndex: 1, isActiveBranch: true, alternativeGroup: expect.any(String) });
    const rows = await h.engine.db.messages.where('conversationSlug').equals(slug).toArray();
    const first = rows.find((m) => m.id === original.id);
    expect(first).toMatchObject({ branchIndex: 0, isActiveBranch: false, alternativeGroup: reply(after).alternativeGroup });
    // The new reply was asked for the same prompt, without the old answer.
    expect(upstream.requests.at(-1)?.body?.messages?.at(-1)).toEqual({ role: 'user', content: 'Question?' });
    expect(JSON.stringify(upstream.requests.at(-1)?.body?.messages)).not.toContain('First answer.');
    expect((await eventTypes(h.dbName)).slice(-5)).toEqual(['message.branched', 'message.added', 'branch.activated', 'reply.started', 'reply.completed']);
  });

  it("allows 10 alternatives and refuses the 11th with 'Alternative limit reached', writing nothing", async () => {
    const h = newEngine();
    const { slug, view: first } = await started(h, 'answer 1');
    let current = reply(first);
    for (let i = 2; i <= 10; i++) {
      upstream.setScript(textReply(`answer ${i}`));
      const r = await h.engine.regenerate(slug, current.id);
      if (!r.ok) throw new Error(r.error);
      const v = await view(h.engine, slug, (x) => settled(x) && reply(x).text === `answer ${i}`);
      current = reply(v);
      expect(current.alternatives).toEqual({ index: i, count: i });
    }
    const logBefore = await eventTypes(h.dbName);
    const refused = await h.engine.regenerate(slug, current.id);
    expect(refused).toEqual({ ok: false, error: 'Alternative limit reached' });
    expect(h.notices()).toContain('Alternative limit reached');
    expect(h.engine.notices$.value.find((n) => n.title === 'Alternative limit reached')?.text).toBe('You can create up to 10 alternative responses per message');
    expect(await eventTypes(h.dbName)).toEqual(logBefore);
  });

  it('only makes alternatives of assistant messages of the conversation named', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h);
    const prompt = v.messages[0] as MessageView;
    expect(await h.engine.regenerate(slug, prompt.id)).toEqual({ ok: false, error: 'Error creating alternative response' });
    expect(await h.engine.regenerate('some-other-conversation', reply(v).id)).toEqual({ ok: false, error: 'Target message not found' });
    expect(await h.engine.regenerate(slug, 424242)).toEqual({ ok: false, error: 'Target message not found' });
    expect(await eventTypes(h.dbName)).toHaveLength(5);
  });

  it('when the new alternative fails and is dropped, the original is whole again (active, out of the group)', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h);
    upstream.setScript({ error: { status: 503, body: { error: { message: 'Overloaded', type: 'server_error' } } } });
    await h.engine.regenerate(slug, reply(v).id);
    const after = await view(h.engine, slug, (x) => settled(x) && x.messages[0]?.hasError === true);
    expect(texts(after)).toEqual(['Question?', 'First answer.']);
    expect(reply(after)).toMatchObject({ alternativeGroup: null, isActiveBranch: true });
    expect(reply(after).alternatives).toBeUndefined();
  });
});

describe('branch switching', () => {
  it('shows each branch with its own continuation', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Answer B.'));
    await h.engine.regenerate(slug, reply(v).id);
    await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Answer B.');
    upstream.setScript(textReply('Follow-up on B.'));
    await h.engine.sendMessage({ slug, prompt: 'More on B?', model: 'fake-model' });
    const onB = await view(h.engine, slug, (x) => settled(x) && x.messages.length === 4);
    expect(texts(onB)).toEqual(['Question?', 'Answer B.', 'More on B?', 'Follow-up on B.']);
    // The follow-up was asked along branch B.
    expect(JSON.stringify(upstream.requests.at(-1)?.body?.messages)).toContain('Answer B.');
    expect(JSON.stringify(upstream.requests.at(-1)?.body?.messages)).not.toContain('Answer A.');

    expect(await h.engine.switchBranch(slug, reply(onB).id, 'previous')).toMatchObject({ ok: true });
    const onA = await view(h.engine, slug, (x) => reply(x).text === 'Answer A.');
    expect(texts(onA)).toEqual(['Question?', 'Answer A.']);
    expect(reply(onA).alternatives).toEqual({ index: 1, count: 2 });
    // childMessages (spec 000 section 3): the question's children are both answers, whichever branch is shown; A has
    // none, B has its follow-up, which has its reply.
    const [question, answerB, more, followUp] = onB.messages;
    const answerA = reply(onA);
    expect(onA.messages.map((m) => m.childMessages)).toEqual([[answerA.id, answerB?.id], []]);
    expect(onB.messages.map((m) => m.childMessages)).toEqual([[answerA.id, answerB?.id], [more?.id], [followUp?.id], []]);
    expect(question?.id).toBe(onA.messages[0]?.id);
    expect(await h.engine.switchBranch(slug, reply(onA).id, 'previous')).toEqual({ ok: false, error: 'Error switching conversation branch' });

    await h.engine.switchBranch(slug, reply(onA).id, 'next');
    const backOnB = await view(h.engine, slug, (x) => x.messages.length === 4);
    expect(texts(backOnB)).toEqual(texts(onB));
  });

  it("refuses a switch while a reply generates with 'Error switching conversation branch', writing nothing", async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Answer B.'));
    await h.engine.regenerate(slug, reply(v).id);
    const two = await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Answer B.');
    upstream.setScript(slowReply(40, 30));
    await h.engine.sendMessage({ slug, prompt: 'Long one', model: 'fake-model' });
    await view(h.engine, slug, (x) => x.pending);
    const logBefore = await eventTypes(h.dbName);
    expect(await h.engine.switchBranch(slug, reply(two).id, 'previous')).toEqual({ ok: false, error: 'Error switching conversation branch' });
    expect(await h.engine.regenerate(slug, reply(two).id)).toEqual({ ok: false, error: 'Error creating alternative response' });
    expect(h.notices()).toContain('Error switching conversation branch');
    expect(await eventTypes(h.dbName)).toEqual(logBefore);
    await h.engine.stopReply(slug);
    await view(h.engine, slug, settled);
  });
});

describe('delete', () => {
  it('deleting the active branch activates another; when one remains it leaves the group', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    const a = reply(v);
    for (const t of ['Answer B.', 'Answer C.']) {
      upstream.setScript(textReply(t));
      await h.engine.regenerate(slug, a.id);
      await view(h.engine, slug, (x) => settled(x) && reply(x).text === t);
    }
    const onC = await view(h.engine, slug, settled);
    expect(reply(onC).alternatives).toEqual({ index: 3, count: 3 });
    expect(await h.engine.deleteMessage(slug, reply(onC).id)).toEqual({ ok: true, slug });
    const onB = await view(h.engine, slug, (x) => reply(x).text === 'Answer B.');
    expect(reply(onB).alternatives).toEqual({ index: 2, count: 2 });
    await h.engine.deleteMessage(slug, reply(onB).id);
    const onA = await view(h.engine, slug, (x) => reply(x).text === 'Answer A.');
    expect(reply(onA)).toMatchObject({ alternativeGroup: null, isActiveBranch: true });
    expect(reply(onA).alternatives).toBeUndefined();
  });

  it('deleting a message of a line keeps what follows it', async () => {
    const h = newEngine();
    const { slug } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Second reply.'));
    await h.engine.sendMessage({ slug, prompt: 'Second prompt', model: 'fake-model' });
    const v = await view(h.engine, slug, (x) => settled(x) && x.messages.length === 4);
    await h.engine.deleteMessage(slug, (v.messages[1] as MessageView).id);
    const after = await view(h.engine, slug, (x) => x.messages.length === 3);
    expect(texts(after)).toEqual(['Question?', 'Second prompt', 'Second reply.']);
  });

  it("'Message deleted' offers Undo, which brings a message of a line back where it was, with its children under it", async () => {
    const h = newEngine();
    const { slug } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Second reply.'));
    await h.engine.sendMessage({ slug, prompt: 'Second prompt', model: 'fake-model' });
    const v = await view(h.engine, slug, (x) => settled(x) && x.messages.length === 4);
    const rowsBefore = await h.engine.db.messages.where('conversationSlug').equals(slug).sortBy('id');
    await h.engine.deleteMessage(slug, (v.messages[1] as MessageView).id);
    await view(h.engine, slug, (x) => x.messages.length === 3);
    const notice = h.engine.notices$.value.find((n) => n.title === 'Message deleted');
    expect(notice).toMatchObject({ text: 'Answer A.', tone: 'blue', durationMs: 15_000, action: { label: 'Undo', kind: 'undoMessage', slug } });
    if (notice?.action?.kind !== 'undoMessage') throw new Error('no undo');
    expect(await h.engine.restoreMessage(slug, notice.action.deletionId)).toEqual({ ok: true, slug });
    const back = await view(h.engine, slug, (x) => x.messages.length === 4);
    expect(texts(back)).toEqual(texts(v));
    // The rows are as they were but for updatedAt (the moved child's), and the notice is gone.
    const strip = (rows: { updatedAt: number }[]) => rows.map(({ updatedAt: _u, ...rest }) => rest);
    expect(strip(await h.engine.db.messages.where('conversationSlug').equals(slug).sortBy('id'))).toEqual(strip(rowsBefore));
    expect(h.engine.notices$.value.some((n) => n.title === 'Message deleted')).toBe(false);
    // A second Undo of the same deletion has nothing to bring back.
    expect(await h.engine.restoreMessage(slug, notice.action.deletionId)).toEqual({ ok: false, error: 'Unable to restore message' });
    expect(texts(await view(h.engine, slug, settled))).toEqual(texts(v));
  });

  it('Undo of a deleted active branch makes it active again and gives the group back its members', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Answer B.'));
    await h.engine.regenerate(slug, reply(v).id);
    const onB = await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Answer B.');
    await h.engine.deleteMessage(slug, reply(onB).id);
    await view(h.engine, slug, (x) => reply(x).text === 'Answer A.' && reply(x).alternatives === undefined);
    const notice = h.engine.notices$.value.find((n) => n.action?.kind === 'undoMessage');
    if (notice?.action?.kind !== 'undoMessage') throw new Error('no undo');
    await h.engine.restoreMessage(slug, notice.action.deletionId);
    const back = await view(h.engine, slug, (x) => reply(x).text === 'Answer B.');
    expect(reply(back).alternatives).toEqual({ index: 2, count: 2 });
    const rows = await h.engine.db.messages.where('conversationSlug').equals(slug).toArray();
    expect(rows.filter((m) => m.role === 'assistant').map((m) => [m.branchIndex, m.isActiveBranch])).toEqual([
      [0, false],
      [1, true],
    ]);
    // The log replays to the same rows (the projection of message.restored is what the engine wrote).
    const store = fold(decodeLog(await h.engine.exportLog()).events);
    const byId = <T extends { id: number }>(list: T[]) => [...list].sort((a, b) => a.id - b.id);
    expect(byId([...store.map('messages').values()])).toEqual(byId(await h.engine.db.messages.toArray()));
  });

  it('refuses Undo once the conversation changed after the deletion, writing nothing', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    await h.engine.deleteMessage(slug, reply(v).id);
    await view(h.engine, slug, (x) => x.messages.length === 1);
    const notice = h.engine.notices$.value.find((n) => n.action?.kind === 'undoMessage');
    if (notice?.action?.kind !== 'undoMessage') throw new Error('no undo');
    upstream.setScript(textReply('Later reply.'));
    await h.engine.sendMessage({ slug, prompt: 'Later', model: 'fake-model' });
    await view(h.engine, slug, (x) => settled(x) && x.messages.length === 3);
    const logBefore = await eventTypes(h.dbName);
    expect(await h.engine.restoreMessage(slug, notice.action.deletionId)).toEqual({ ok: false, error: 'Unable to restore message' });
    expect(h.engine.notices$.value.find((n) => n.title === 'Unable to restore message')?.text).toBe('The conversation changed after the deletion.');
    expect(await eventTypes(h.dbName)).toEqual(logBefore);
  });

  it("refuses a missing message with 'Unable to delete message', writing nothing", async () => {
    const h = newEngine();
    const { slug } = await started(h);
    const logBefore = await eventTypes(h.dbName);
    expect(await h.engine.deleteMessage(slug, 999_999)).toEqual({ ok: false, error: 'Unable to delete message' });
    expect(h.notices()).toContain('Unable to delete message');
    expect(await eventTypes(h.dbName)).toEqual(logBefore);
  });
});

describe('edit, retry, duplicate', () => {
  it('an edited prompt and its new reply become a new branch; the original stays reachable', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer to the original.');
    upstream.setScript(textReply('Answer to the edit.'));
    const r = await h.engine.editMessage(slug, (v.messages[0] as MessageView).id, 'Edited question?');
    expect(r.ok).toBe(true);
    const edited = await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Answer to the edit.');
    expect(texts(edited)).toEqual(['Edited question?', 'Answer to the edit.']);
    expect(edited.messages[0]?.alternatives).toEqual({ index: 2, count: 2 });
    expect(upstream.requests.at(-1)?.body?.messages?.at(-1)).toEqual({ role: 'user', content: 'Edited question?' });
    await h.engine.switchBranch(slug, (edited.messages[0] as MessageView).id, 'previous');
    const original = await view(h.engine, slug, (x) => x.messages[0]?.text === 'Question?');
    expect(texts(original)).toEqual(['Question?', 'Answer to the original.']);
  });

  it('Retry sends a failed prompt again and clears its error', async () => {
    const h = newEngine();
    upstream.setScript({ error: { status: 503, body: { error: { message: 'Overloaded', type: 'server_error' } } } });
    const r = await h.engine.sendMessage({ slug: null, prompt: 'Try me', model: 'fake-model' });
    if (!r.ok) throw new Error(r.error);
    const failed = await view(h.engine, r.slug, (x) => settled(x) && x.messages[0]?.hasError === true);
    expect(failed.messages).toHaveLength(1);
    upstream.setScript(textReply('Worked this time.'));
    expect((await h.engine.retryMessage(r.slug, (failed.messages[0] as MessageView).id)).ok).toBe(true);
    const after = await view(h.engine, r.slug, (x) => settled(x) && x.messages.length === 2);
    expect(texts(after)).toEqual(['Try me', 'Worked this time.']);
    expect(after.messages[0]?.hasError).toBeUndefined();
  });

  it("duplicates up to a message with ' (Copy)' and new ids; refuses while a reply is pending", async () => {
    const h = newEngine();
    const { slug } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Second reply.'));
    await h.engine.sendMessage({ slug, prompt: 'Second prompt', model: 'fake-model' });
    const v = await view(h.engine, slug, (x) => settled(x) && x.messages.length === 4);
    const r = await h.engine.duplicateConversation(slug, (v.messages[1] as MessageView).id);
    if (!r.ok || !r.slug) throw new Error('duplicate failed');
    const copy = await view(h.engine, r.slug, () => true);
    expect(copy.conversation.name).toBe(`${v.conversation.name} (Copy)`);
    expect(texts(copy)).toEqual(['Question?', 'Answer A.']);
    const oldIds = new Set(v.messages.map((m) => m.id));
    expect(copy.messages.every((m) => !oldIds.has(m.id) && m.conversationSlug === r.slug)).toBe(true);
    expect(copy.messages[1]?.parentMessageId).toBe(copy.messages[0]?.id);
    expect(h.notices()).toContain('Conversation duplicated');

    upstream.setScript(slowReply(40, 30));
    await h.engine.sendMessage({ slug, prompt: 'Long one', model: 'fake-model' });
    await view(h.engine, slug, (x) => x.pending);
    expect(await h.engine.duplicateConversation(slug, (v.messages[1] as MessageView).id)).toEqual({ ok: false, error: 'Action unavailable' });
    expect(h.engine.notices$.value.find((n) => n.title === 'Action unavailable')?.text).toBe('Please wait for the current response to complete before duplicating.');
    expect(await h.engine.duplicateConversation('nope', 1)).toEqual({ ok: false, error: 'Target message not found' });
    await h.engine.stopReply(slug);
    await view(h.engine, slug, settled);
  });
});

describe('a failing append (the local log refuses the write)', () => {
  it("deleting a branch answers 'Error deleting conversation branch' and keeps every alternative", async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Answer B.'));
    await h.engine.regenerate(slug, reply(v).id);
    const onB = await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Answer B.');
    const logBefore = await eventTypes(h.dbName);
    const append = vi.spyOn(h.engine, 'append').mockRejectedValueOnce(new Error('QuotaExceededError: the disk is full'));
    try {
      expect(await h.engine.deleteMessage(slug, reply(onB).id)).toEqual({ ok: false, error: 'Error deleting conversation branch' });
    } finally {
      append.mockRestore();
    }
    expect(h.engine.notices$.value.find((n) => n.title === 'Error deleting conversation branch')?.text).toBe('QuotaExceededError: the disk is full');
    expect(await eventTypes(h.dbName)).toEqual(logBefore);
    const after = await view(h.engine, slug, settled);
    expect(reply(after)).toMatchObject({ text: 'Answer B.', alternatives: { index: 2, count: 2 } });
  });

  it("duplicating answers 'Error duplicating conversation' and makes no copy", async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    const logBefore = await eventTypes(h.dbName);
    const append = vi.spyOn(h.engine, 'append').mockRejectedValueOnce(new Error('QuotaExceededError: the disk is full'));
    try {
      expect(await h.engine.duplicateConversation(slug, reply(v).id)).toEqual({ ok: false, error: 'Error duplicating conversation' });
    } finally {
      append.mockRestore();
    }
    expect(h.notices()).toContain('Error duplicating conversation');
    expect(h.notices()).not.toContain('Conversation duplicated');
    expect(await eventTypes(h.dbName)).toEqual(logBefore);
    expect((await h.engine.db.conversations.toArray()).map((c) => c.slug)).toEqual([slug]);
  });
});

describe('Continue', () => {
  it('is offered within 10% of max tokens and extends the reply in place, charged and counted like a reply', async () => {
    const h = newEngine();
    await h.engine.setPreferences({ maxTokens: 100 });
    upstream.setScript(textReply('The first part', { usage: { prompt_tokens: 5, completion_tokens: 89 } }));
    const r = await h.engine.sendMessage({ slug: null, prompt: 'Write a lot', model: 'fake-model' });
    if (!r.ok) throw new Error(r.error);
    const below = await view(h.engine, r.slug, (x) => settled(x) && x.messages.length === 2);
    // 89 of 100: more than 10% short of max tokens.
    expect(reply(below).canContinue).toBe(false);
    expect(await h.engine.continueReply(r.slug, reply(below).id)).toEqual({ ok: false, error: 'Error sending message' });

    upstream.setScript(textReply('The first part', { usage: { prompt_tokens: 5, completion_tokens: 90 } }));
    await h.engine.regenerate(r.slug, reply(below).id);
    const near = await view(h.engine, r.slug, (x) => settled(x) && reply(x).outputTokens === 90);
    expect(reply(near).canContinue).toBe(true);

    upstream.setScript(textReply(' and the rest.', { usage: { prompt_tokens: 20, completion_tokens: 4 } }));
    expect(await h.engine.continueReply(r.slug, reply(near).id)).toMatchObject({ ok: true });
    const done = await view(h.engine, r.slug, (x) => settled(x) && reply(x).text.endsWith('rest.'));
    expect(reply(done)).toMatchObject({ id: reply(near).id, text: 'The first part and the rest.', outputTokens: 94 });
    expect(done.messages).toHaveLength(2);
    // The gateway was asked to go on: the reply so far is the last message.
    expect(upstream.requests.at(-1)?.body?.messages?.at(-1)).toEqual({ role: 'assistant', content: 'The first part' });
    expect((await eventTypes(h.dbName)).slice(-2)).toEqual(['reply.continued', 'reply.completed']);
  });
});

describe('Continue that fails', () => {
  it('keeps the reply it was extending (never deletes it), with what arrived', async () => {
    const h = newEngine();
    await h.engine.setPreferences({ maxTokens: 100 });
    upstream.setScript(textReply('Kept text', { usage: { prompt_tokens: 5, completion_tokens: 95 } }));
    const r = await h.engine.sendMessage({ slug: null, prompt: 'Go', model: 'fake-model' });
    if (!r.ok) throw new Error(r.error);
    const v = await view(h.engine, r.slug, (x) => settled(x) && x.messages.length === 2);
    upstream.setScript({ error: { status: 503, body: { error: { message: 'Overloaded', type: 'server_error' } } } });
    expect((await h.engine.continueReply(r.slug, reply(v).id)).ok).toBe(true);
    const after = await view(h.engine, r.slug, (x) => settled(x) && x.messages[0]?.hasError === true);
    expect(after.messages).toHaveLength(2);
    expect(reply(after)).toMatchObject({ id: reply(v).id, text: 'Kept text', status: 'done' });
    expect(h.notices()).toContain('Model is temporarily not responding');
  });
});

describe('replay', () => {
  it('the exported log, folded in Node, gives the read models the engine holds', async () => {
    const h = newEngine();
    const { slug, view: v } = await started(h, 'Answer A.');
    upstream.setScript(textReply('Answer B.'));
    await h.engine.regenerate(slug, reply(v).id);
    const two = await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Answer B.');
    await h.engine.switchBranch(slug, reply(two).id, 'previous');
    upstream.setScript(textReply('Edited answer.'));
    await h.engine.editMessage(slug, (two.messages[0] as MessageView).id, 'Edited?');
    const edited = await view(h.engine, slug, (x) => settled(x) && reply(x).text === 'Edited answer.');
    await h.engine.deleteMessage(slug, reply(edited).id);
    const dup = await h.engine.duplicateConversation(slug, (edited.messages[0] as MessageView).id);
    expect(dup.ok).toBe(true);
    await view(h.engine, slug, (x) => x.messages.length === 1);

    const store = fold(decodeLog(await h.engine.exportLog()).events);
    const byId = <T extends { id: number }>(rows: T[]) => [...rows].sort((a, b) => a.id - b.id);
    expect(byId([...store.map('messages').values()])).toEqual(byId(await h.engine.db.messages.toArray()));
    expect(byId([...store.map('conversations').values()])).toEqual(byId(await h.engine.db.conversations.toArray()));
  });
});
