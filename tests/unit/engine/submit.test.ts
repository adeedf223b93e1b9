/**
 * The submit flow on the engine (fake-indexeddb) against the in-process gateway: the queue (pending flag, order,
 * removal, a restart with messages still queued), multi-model replies with one failing model, the context window
 * of a 10,000-message conversation, and replay of the log these produce.
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { MessageRow, QueuedMessage } from '../../../src/events/model';
import type { ConversationView, Notice, QueuedView, QueueTurn } from '../../../src/protocol/engine';
import { foldQueue } from '../../../src/projections/queue';
import { fold } from '../../../src/projections/fold';
import { decodeLog } from '../../../src/events/codec';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { ParleyDB } from '../../../src/worker/db/schema';
import { Engine } from '../../../src/worker/engine';
import { appendEvents, readLog } from '../../../src/worker/log';
import { MULTI_MODEL } from '../../../src/shared/messages';
import { openAiError, startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { fetchThrough, until } from './harness';

let upstream: FakeUpstream;
let gateway: RunningGateway;
const realFetch = globalThis.fetch;
/** Per upstream model: how long each word takes (a slow model keeps the conversation pending). */
const wordDelay = new Map<string, number>();
/** Web searches the engine asked for (answered here: the gateway's search is tested in tests/unit/web). */
const searches: { query: string; depth: string }[] = [];
/** The models the engine asked /api/stream-gpt for (with their web search suffix). */
const streamedModels: string[] = [];
/** The models whose /api/stream-gpt answer carried the gateway's 'X-Parley-Web-Search: not-run'. */
const notRunModels: string[] = [];
/** When set, lines the multi-model stream carries around the gateway's own: before its first line and after its last. */
let multiGarbage: { before: string; after: string } | null = null;

beforeAll(async () => {
  upstream = await startFakeUpstream((req) => {
    const model = req.body?.model ?? '?';
    if (model.startsWith('broken-model')) return { error: { status: 503, body: openAiError('Overloaded', 'server_error') } };
    const last = (req.body?.messages ?? []).at(-1) as { content?: string } | undefined;
    return textReply(`${model} answers: ${String(last?.content ?? '')}`, { delayMs: wordDelay.get(model) ?? 0 });
  });
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: {
      PARLEY_UPSTREAM_URL: upstream.url,
      PARLEY_UPSTREAM_MODELS: 'fake-model,other-model,broken-model,broken-model-2,slow-model',
      PARLEY_OFFLINE_TOKEN_DELAY_MS: '0',
    },
  });
  const through = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), gateway.url);
    if (url.pathname === '/api/web-search' && init?.method === 'POST') {
      const body = JSON.parse(String(init.body)) as { query: string; depth: string };
      searches.push({ query: body.query, depth: body.depth });
      const found = { results: [{ title: 'Found', url: 'https://found.example/', snippet: 'A source.' }], provider: 'fake', depth: body.depth, cost: 0, paymentSource: 'USD' };
      return new Response(JSON.stringify(found), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    if (url.pathname === '/api/stream-gpt') streamedModels.push((JSON.parse(String(init?.body)) as { model: string }).model);
    const res = await through(input, init);
    if (url.pathname === '/api/stream-gpt' && res.headers.get('x-parley-web-search') === 'not-run') notRunModels.push(streamedModels.at(-1) ?? '?');
    const garbage = multiGarbage;
    if (url.pathname === '/api/talk-to-gpt-multi' && garbage && res.body) {
      const bytes = new TextEncoder();
      const framed = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          start: (c) => c.enqueue(bytes.encode(garbage.before)),
          flush: (c) => c.enqueue(bytes.encode(garbage.after)),
        }),
      );
      return new Response(framed, { status: res.status, headers: res.headers });
    }
    return res;
  };
  wordDelay.set('slow-model', 60);
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await upstream?.close();
});

const engines: Engine[] = [];
function newEngine(dbName: string, queueOfferMs?: number): Engine {
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName, ...(queueOfferMs ? { queueOfferMs } : {}) });
  engines.push(engine);
  return engine;
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
});
const view = (e: Engine, slug: string, test: (v: ConversationView) => boolean) => until<ConversationView>(e.observe({ kind: 'conversation', slug }), test);
const queue = (e: Engine, slug: string, test: (v: QueuedView[]) => boolean) => until<QueuedView[]>(e.observe({ kind: 'queue', slug }), test);
const done = (v: ConversationView) => !v.pending && v.messages.every((m) => m.status === 'done' || m.status === 'error');

async function logOf(dbName: string): Promise<NewEvent[]> {
  const db = new ParleyDB(dbName);
  const log = await readLog(db);
  db.close();
  return log;
}

describe('submit flow: validation', () => {
  it('refuses a model of another mode (every mode is built), a 5th extra model and duplicates', async () => {
    const engine = newEngine('submit-validate');
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: 'fake-model', mode: 'audio' })).toEqual({ ok: false, error: 'fake-model is not an audio model' });
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: 'fake-model', mode: 'image' })).toEqual({ ok: false, error: 'fake-model is not an image model' });
    const five = ['other-model', 'broken-model', 'slow-model', 'offline', 'x'];
    expect(await engine.sendMessage({ slug: null, prompt: 'hi', model: 'fake-model', extraModels: five })).toEqual({ ok: false, error: MULTI_MODEL.tooManyExtras });
    expect(await engine.sendMessage({ slug: null, prompt: 'hi', model: 'fake-model', extraModels: ['other-model', 'other-model'] })).toEqual({ ok: false, error: MULTI_MODEL.duplicate });
    expect(await engine.sendMessage({ slug: null, prompt: 'hi', model: 'fake-model', extraModels: ['fake-model'] })).toEqual({ ok: false, error: MULTI_MODEL.duplicate });
    expect(await engine.sendMessage({ slug: null, prompt: 'hi', model: 'fake-model', extraModels: ['no-such-model'] })).toEqual({ ok: false, error: 'Unknown model: no-such-model' });
    expect(await logOf('submit-validate')).toEqual([]);
  });

  it('marks a short thank-you as thankful', async () => {
    const engine = newEngine('submit-thanks');
    const r = await engine.sendMessage({ slug: null, prompt: 'Thanks a lot!', model: 'fake-model' });
    if (!r.ok) throw new Error(r.error);
    const v = await view(engine, r.slug, done);
    expect(v.messages[0]?.sentiment).toBe('thankful');
  });
});

describe('queue', () => {
  it('queues Send while a reply generates, shows the queue, sends each in order when the reply ends, and removes on request', async () => {
    const engine = newEngine('queue-order');
    const first = await engine.sendMessage({ slug: null, prompt: 'one two three four five six', model: 'slow-model' });
    if (!first.ok) throw new Error(first.error);
    const slug = first.slug;
    const a = await engine.sendMessage({ slug, prompt: 'second', model: 'fake-model' });
    const b = await engine.sendMessage({ slug, prompt: 'dropped', model: 'fake-model' });
    const c = await engine.sendMessage({ slug, prompt: 'third', model: 'fake-model' });
    expect([a, b, c].map((r) => r.ok && r.queued)).toEqual([true, true, true]);
    expect(await engine.sendMessage({ slug, prompt: '   ', model: 'fake-model' })).toEqual({ ok: false, error: 'Message is required' });
    const queued = await queue(engine, slug, (q) => q.length === 3);
    expect(queued.map((q) => q.prompt)).toEqual(['second', 'dropped', 'third']);
    expect(queued[0]).toMatchObject({ attachments: [], scrapedUrls: [], scrapedContent: [] });
    expect(await engine.removeQueuedMessage(slug, queued[1]?.id ?? '')).toEqual({ ok: true });
    expect((await engine.removeQueuedMessage(slug, 'nope')).ok).toBe(false);

    // Every view shows a queued message either in the queue or sent, never both and never neither.
    const torn: string[] = [];
    const watch = engine.observe({ kind: 'conversation', slug }).subscribe((v) => {
      if (!v) return;
      const sent = new Set(v.messages.filter((m) => m.role === 'user').map((m) => m.text));
      for (const p of ['second', 'third']) if (sent.has(p) === v.queue.some((q) => q.prompt === p)) torn.push(`${p}: ${sent.has(p) ? 'both' : 'neither'}`);
    });
    const final = await view(engine, slug, (v) => done(v) && v.messages.length === 6);
    watch.unsubscribe();
    expect(torn).toEqual([]);
    expect(final.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'one two three four five six'],
      ['assistant', 'slow-model answers: one two three four five six'],
      ['user', 'second'],
      ['assistant', 'fake-model answers: second'],
      ['user', 'third'],
      ['assistant', 'fake-model answers: third'],
    ]);
    expect(await queue(engine, slug, (q) => q.length === 0)).toEqual([]);
    // The queue entry leaves in the same append as its user message: replay gives the same queue and messages.
    const log = await logOf('queue-order');
    expect(foldQueue(log).size).toBe(0);
    const removed = log.filter((e) => e.type === 'queue.messageRemoved').map((e) => (e.payload as { reason: string }).reason);
    expect(removed).toEqual(['removed', 'submitted', 'submitted']);
  });

  it('offers the next queued message to a tab showing the conversation, which sends it from its input (spec 000 section 4)', async () => {
    const engine = newEngine('queue-turn', 120_000);
    const first = await engine.sendMessage({ slug: null, prompt: 'one two three four five six', model: 'slow-model' });
    if (!first.ok) throw new Error(first.error);
    const slug = first.slug;
    expect((await engine.sendMessage({ slug, prompt: 'queued one', model: 'fake-model' })).ok).toBe(true);
    // A tab shows the conversation: it watches the queue's turn (two tabs here).
    const turns: (string | null)[] = [];
    const tabA = engine.observe({ kind: 'queueTurn', slug }).subscribe((t) => turns.push(t?.prompt ?? null));
    const tabB = engine.observe({ kind: 'queueTurn', slug }).subscribe(() => undefined);
    const turn = await until<QueueTurn | null>(engine.observe({ kind: 'queueTurn', slug }), (t) => t !== null);
    expect(turn?.prompt).toBe('queued one');
    // The reply ended, but the engine does not send it itself: it waits for the tab, which puts it in the input.
    const waiting = await view(engine, slug, (v) => !v.pending);
    expect(waiting.queue.map((q) => q.prompt)).toEqual(['queued one']);
    expect(waiting.messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['one two three four five six']);
    // The tab sends the input's text; a second tab answering the same offer is refused (sent once).
    const [sentA, sentB] = await Promise.all([
      engine.sendQueuedMessage(slug, turn?.id ?? '', 'queued one, as the input had it'),
      engine.sendQueuedMessage(slug, turn?.id ?? '', 'queued one'),
    ]);
    expect(sentA).toMatchObject({ ok: true, slug });
    expect(sentB).toEqual({ ok: false, error: 'This message is no longer queued' });
    const final = await view(engine, slug, (v) => done(v) && v.messages.length === 4);
    expect(final.queue).toEqual([]);
    expect(final.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'one two three four five six'],
      ['assistant', 'slow-model answers: one two three four five six'],
      ['user', 'queued one, as the input had it'],
      ['assistant', 'fake-model answers: queued one, as the input had it'],
    ]);
    expect(turns.at(-1)).toBeNull();
    tabA.unsubscribe();
    tabB.unsubscribe();
    const log = await logOf('queue-turn');
    expect(log.filter((e) => e.type === 'queue.messageRemoved').map((e) => (e.payload as { reason: string }).reason)).toEqual(['submitted']);
  });

  it('sends an offered message itself when no tab takes it in time, and offers the next when one on offer is removed', async () => {
    const engine = newEngine('queue-turn-fallback', 300);
    const first = await engine.sendMessage({ slug: null, prompt: 'one two three four five six', model: 'slow-model' });
    if (!first.ok) throw new Error(first.error);
    const slug = first.slug;
    expect((await engine.sendMessage({ slug, prompt: 'removed on offer', model: 'fake-model' })).ok).toBe(true);
    expect((await engine.sendMessage({ slug, prompt: 'nobody takes it', model: 'fake-model' })).ok).toBe(true);
    const offered: string[] = [];
    const tab = engine.observe({ kind: 'queueTurn', slug }).subscribe((t) => t && offered.push(t.prompt));
    const turn = await until<QueueTurn | null>(engine.observe({ kind: 'queueTurn', slug }), (t) => t !== null);
    expect(turn?.prompt).toBe('removed on offer');
    expect(await engine.removeQueuedMessage(slug, turn?.id ?? '')).toEqual({ ok: true });
    // The tab (hidden, say) never answers: the engine sends the message once the offer lapses.
    const final = await view(engine, slug, (v) => done(v) && v.messages.length === 4);
    tab.unsubscribe();
    expect(offered).toEqual(['removed on offer', 'nobody takes it']);
    expect(final.messages.map((m) => m.text)).toEqual(['one two three four five six', 'slow-model answers: one two three four five six', 'nobody takes it', 'fake-model answers: nobody takes it']);
    expect(final.queue).toEqual([]);
    expect(await engine.sendQueuedMessage(slug, turn?.id ?? '', 'late')).toEqual({ ok: false, error: 'This message is no longer queued' });
  });

  it('a queued message keeps its web search and depth: it searches the web when it is sent', async () => {
    const engine = newEngine('queue-web-search');
    const first = await engine.sendMessage({ slug: null, prompt: 'one two three four five six', model: 'slow-model' });
    if (!first.ok) throw new Error(first.error);
    const slug = first.slug;
    const queued = await engine.sendMessage({ slug, prompt: 'news about bread', model: 'fake-model', webSearch: { depth: 'deep' } });
    expect(queued.ok && queued.queued).toBe(true);
    const plain = await engine.sendMessage({ slug, prompt: 'no search here', model: 'fake-model' });
    expect(plain.ok && plain.queued).toBe(true);
    expect(searches.filter((s) => s.query === 'news about bread')).toEqual([]);
    // The queue shows which queued message will search the web.
    const waiting = await queue(engine, slug, (q) => q.length === 2);
    expect(waiting.map((q) => [q.prompt, q.webSearch])).toEqual([
      ['news about bread', { depth: 'deep' }],
      ['no search here', undefined],
    ]);
    const final = await view(engine, slug, (v) => done(v) && v.messages.length === 6);
    // Sent once the first reply ended, with the deep search it was queued with, and the spec's model suffix.
    expect(searches.filter((s) => s.query === 'news about bread')).toEqual([{ query: 'news about bread', depth: 'deep' }]);
    expect(searches.some((s) => s.query === 'no search here')).toBe(false);
    expect(streamedModels).toContain('fake-model:online/linkup-deep');
    // The engine searched first and sent the sources: the gateway does not report its search as not run.
    expect(notRunModels).toEqual([]);
    const searched = final.messages.find((m) => m.text === 'news about bread');
    expect(searched?.webSearch).toMatchObject({ depth: 'deep', provider: 'fake' });
    expect(final.messages.find((m) => m.text === 'no search here')?.webSearch).toBeUndefined();
    const replyToSearched = final.messages.find((m) => m.parentMessageId === searched?.id);
    expect(replyToSearched?.citations?.map((c) => c.url)).toEqual(['https://found.example/']);
    // The log keeps the flag on the queue event (v2), and replays to the same messages.
    const log = await logOf('queue-web-search');
    const added = log.filter((e) => e.type === 'queue.messageAdded').map((e) => [e.v, (e.payload as { webSearch: unknown }).webSearch]);
    expect(added).toEqual([
      [2, { depth: 'deep' }],
      [2, null],
    ]);
  });

  it('survives a restart: a new engine sends what was still queued', async () => {
    const at = 1_763_800_000_000;
    const db = new ParleyDB('queue-restart');
    await db.open();
    const base = { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: at };
    const user: MessageRow = { id: 1, conversationSlug: 'q-1', timestamp: at, role: 'user', prompt: 'hello', model: 'fake-model', status: 'done', parentMessageId: null, ...base };
    const reply: MessageRow = { ...user, id: 2, role: 'assistant', prompt: 'hi', parentMessageId: 1, timestamp: at + 1 };
    const message: QueuedMessage = { id: 'qm-1', prompt: 'left in the queue', attachments: [], scrapedUrls: [], scrapedContent: [], timestamp: at + 2 };
    await appendEvents(db, [
      makeEvent('conversation.created', { conversation: { id: 1, uuid: 'u-q', slug: 'q-1', name: 'hello', createdAt: at, updatedAt: at, latestMessage: '', isMediaOnly: false } }, 'q1', at),
      makeEvent('message.added', { message: user }, 'q2', at),
      makeEvent('message.added', { message: reply }, 'q3', at),
    ]);
    // Queued by an older build: a queue.messageAdded v1 row (no web search field), read through its upcaster.
    await db.events.add({ type: 'queue.messageAdded', v: 1, id: 'q4', at: at + 2, payload: { conversationSlug: 'q-1', message, model: 'fake-model', extraModels: [], at: at + 2 } } as never);
    db.close();
    const engine = newEngine('queue-restart');
    const v = await view(engine, 'q-1', (x) => done(x) && x.messages.length === 4);
    expect(v.messages.slice(2).map((m) => m.text)).toEqual(['left in the queue', 'fake-model answers: left in the queue']);
    expect(v.messages[2]?.parentMessageId).toBe(2);
  });
});

describe('multi-model', () => {
  it('stores one reply per model; a failing model keeps its error on its own message and the others finish', async () => {
    const engine = newEngine('multi');
    const notices: Notice[] = [];
    engine.observe({ kind: 'notices' }).subscribe((n) => notices.push(...(n as Notice[])));
    const r = await engine.sendMessage({ slug: null, prompt: 'Compare', model: 'fake-model', extraModels: ['other-model', 'broken-model'] });
    if (!r.ok) throw new Error(r.error);
    const v = await view(engine, r.slug, (x) => done(x) && x.messages.length === 4);
    const [user, ...replies] = v.messages;
    expect(user).toMatchObject({ role: 'user', status: 'done' });
    expect(user?.hasError).toBeUndefined();
    expect(replies.map((m) => [m.model, m.status, m.text])).toEqual([
      ['fake-model', 'done', 'fake-model answers: Compare'],
      ['other-model', 'done', 'other-model answers: Compare'],
      ['broken-model', 'error', ''],
    ]);
    expect(replies[2]).toMatchObject({ hasError: true, error: 'Overloaded' });
    // The refused model's notice is the one of its status, told once.
    expect(notices.map((n) => n.title)).toContain('Model is temporarily not responding');
    expect(notices.map((n) => n.title)).not.toContain('Error sending message');
    expect(new Set(replies.map((m) => m.multiModelRequest)).size).toBe(1);
    expect(replies.every((m) => m.parentMessageId === user?.id)).toBe(true);

    // Replay: folding the log gives the same messages.
    const engineLog = await engine.exportLog();
    const folded = fold(decodeLog(engineLog).events);
    const rows = [...folded.rows('messages')].sort((x, y) => x.id - y.id);
    expect(rows.map((m) => [m.model, m.status, m.hasError ?? false])).toEqual([
      ['fake-model', 'done', false],
      ['fake-model', 'done', false],
      ['other-model', 'done', false],
      ['broken-model', 'error', true],
    ]);
  });

  it('a malformed line is skipped with a notice: every model\'s reply stays whole, in the view and in the log', async () => {
    const engine = newEngine('multi-malformed');
    const notices: Notice[] = [];
    engine.observe({ kind: 'notices' }).subscribe((n) => notices.push(...(n as Notice[])));
    // Not JSON, a model the request did not ask for (with a chunk that must not show anywhere), and an unfinished line.
    multiGarbage = {
      before: '{"modelId":"fake-model","chunk":\n' + JSON.stringify({ modelId: 'stranger-model', chunk: 'INJECTED' }) + '\n',
      after: '{"modelId":"other-model","chunk":"TRAILING',
    };
    try {
      const r = await engine.sendMessage({ slug: null, prompt: 'Garbled', model: 'fake-model', extraModels: ['other-model'] });
      if (!r.ok) throw new Error(r.error);
      const v = await view(engine, r.slug, (x) => done(x) && x.messages.length === 3);
      expect(v.messages.slice(1).map((m) => [m.model, m.status, m.text, m.hasError ?? false])).toEqual([
        ['fake-model', 'done', 'fake-model answers: Garbled', false],
        ['other-model', 'done', 'other-model answers: Garbled', false],
      ]);
      const told = notices.filter((n) => n.title === MULTI_MODEL.unreadableTitle);
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({ text: MULTI_MODEL.unreadableText, tone: 'orange' });
      // The log holds the same two whole replies (replay gives what the view showed).
      const rows = [...fold(decodeLog(await engine.exportLog()).events).rows('messages')].filter((m) => m.role === 'assistant');
      expect(rows.map((m) => [m.model, m.status, m.prompt])).toEqual([
        ['fake-model', 'done', 'fake-model answers: Garbled'],
        ['other-model', 'done', 'other-model answers: Garbled'],
      ]);
    } finally {
      multiGarbage = null;
    }
  });

  it("marks the prompt with 'Failed to start multi-model stream' when no model starts", async () => {
    const engine = newEngine('multi-none');
    const notices: Notice[] = [];
    engine.observe({ kind: 'notices' }).subscribe((n) => notices.push(...(n as Notice[])));
    const r = await engine.sendMessage({ slug: null, prompt: 'Nobody?', model: 'broken-model', extraModels: ['broken-model-2'] });
    if (!r.ok) throw new Error(r.error);
    const v = await view(engine, r.slug, (x) => !x.pending && x.messages[0]?.hasError === true);
    expect(v.messages).toHaveLength(1);
    expect(v.messages[0]).toMatchObject({ role: 'user', status: 'error', error: 'Failed to start multi-model stream' });
    expect(notices.map((n) => n.title)).toContain('Model is temporarily not responding');
  });
});

describe('context window', () => {
  it('a 10,000-message conversation keeps working: the request carries what fits, and the prompt records what was left out', async () => {
    const at = 1_763_900_000_000;
    const db = new ParleyDB('long');
    await db.open();
    const events: NewEvent[] = [
      makeEvent('conversation.created', { conversation: { id: 1, uuid: 'u-long', slug: 'long-1', name: 'long', createdAt: at, updatedAt: at, latestMessage: '', isMediaOnly: false } }, 'l0', at),
    ];
    for (let i = 0; i < 10_000; i++) {
      const row: MessageRow = {
        id: i + 1, conversationSlug: 'long-1', timestamp: at + i, role: i % 2 === 0 ? 'user' : 'assistant', prompt: `message ${i} `.padEnd(200, '.'), model: 'fake-model',
        status: 'done', parentMessageId: i === 0 ? null : i, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: at + i,
      };
      events.push(makeEvent('message.added', { message: row }, `l${i + 1}`, at + i));
    }
    await appendEvents(db, events);
    db.close();
    const engine = newEngine('long');
    upstream.requests.length = 0;
    const r = await engine.sendMessage({ slug: 'long-1', prompt: 'Still there?', model: 'fake-model' });
    if (!r.ok) throw new Error(r.error);
    const v = await view(engine, 'long-1', (x) => done(x) && x.messages.length === 10_002);
    expect(v.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'done', text: 'fake-model answers: Still there?' });
    const sent = upstream.requests.at(-1)?.body?.messages as { role: string; content: string }[];
    expect(sent[0]?.role).toBe('system');
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Still there?' });
    expect(sent.length).toBeLessThan(1000);
    expect(sent[1]?.role).toBe('user');
    const prompt = v.messages.at(-2);
    expect(prompt?.contextOmitted).toBe(10_000 - (sent.length - 2));
  });
});
