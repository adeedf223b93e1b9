import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { firstValueFrom, filter } from 'rxjs';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { MessageRow } from '../../../src/events/model';
import type { ConversationView, Notice } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { ParleyDB } from '../../../src/worker/db/schema';
import { Engine, INTERRUPTED_REASON } from '../../../src/worker/engine';
import { appendEvents, readLog } from '../../../src/worker/log';
import { startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { fetchThrough } from './harness';

let upstream: FakeUpstream;
let gateway: RunningGateway;
const realFetch = globalThis.fetch;
let sessionCalls = 0;

beforeAll(async () => {
  upstream = await startFakeUpstream(textReply('Hi there.'), { models: ['fake-model'] });
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: { PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' },
  });
  // The engine calls same-origin paths with the session cookie, as in a browser: a fetch with a one-cookie jar.
  const through = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    if (new URL(String(input), gateway.url).pathname === '/auth/local-session') sessionCalls++;
    return through(input, init);
  };
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await upstream?.close();
});

const engines: Engine[] = [];
let dbCounter = 0;
function newEngine(dbName = `engine-test-${++dbCounter}`, replyStallMs?: number): Engine {
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName, ...(replyStallMs ? { replyStallMs } : {}) });
  engines.push(engine);
  return engine;
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
});

function conversation(engine: Engine, slug: string, until: (v: ConversationView) => boolean): Promise<ConversationView> {
  return firstValueFrom(
    (engine.observe({ kind: 'conversation', slug }) as import('rxjs').Observable<ConversationView | null>).pipe(
      filter((v): v is ConversationView => v !== null && until(v)),
    ),
  );
}

async function eventTypes(dbName: string): Promise<string[]> {
  const db = new ParleyDB(dbName);
  const log = await readLog(db);
  db.close();
  return log.map((e) => e.type);
}

describe('engine', () => {
  it("rejects a blank prompt with 'Message is required' and writes nothing", async () => {
    const engine = newEngine('blank');
    const result = await engine.sendMessage({ slug: null, prompt: ' \n\t ', model: 'fake-model' });
    expect(result).toEqual({ ok: false, error: 'Message is required' });
    expect(await eventTypes('blank')).toEqual([]);
  });

  it('sends, streams and completes, appending the lifecycle events in order', async () => {
    upstream.setScript(textReply('Hello from upstream.', { usage: { prompt_tokens: 3, completion_tokens: 4 } }));
    const engine = newEngine('send');
    const result = await engine.sendMessage({ slug: null, prompt: 'Say hello to me', model: 'fake-model' });
    if (!result.ok) throw new Error(result.error);
    expect(result.slug).toMatch(/^say-hello-to-me-[a-z0-9]{7}$/);
    const view = await conversation(engine, result.slug, (v) => v.messages.some((m) => m.role === 'assistant' && m.status === 'done'));
    expect(view.conversation.name).toBe('Say hello to me');
    expect(view.messages.map((m) => [m.role, m.text, m.status])).toEqual([
      ['user', 'Say hello to me', 'done'],
      ['assistant', 'Hello from upstream.', 'done'],
    ]);
    expect(view.messages[1]?.outputTokens).toBe(4);
    expect(view.messages[1]?.parentMessageId).toBe(view.messages[0]?.id);
    expect(await eventTypes('send')).toEqual(['conversation.created', 'message.added', 'message.added', 'reply.started', 'reply.completed']);
  });

  it('marks the user message with the error and deletes the pending reply when the gateway refuses', async () => {
    upstream.setScript({ error: { status: 503, body: { error: { message: 'Overloaded', type: 'server_error' } } } });
    const engine = newEngine('refused');
    const notices: Notice[][] = [];
    engine.observe({ kind: 'notices' }).subscribe((n) => notices.push(n as Notice[]));
    const result = await engine.sendMessage({ slug: null, prompt: 'Anyone?', model: 'fake-model' });
    if (!result.ok) throw new Error(result.error);
    const view = await conversation(engine, result.slug, (v) => v.messages.some((m) => m.hasError));
    expect(view.messages).toHaveLength(1);
    expect(view.messages[0]).toMatchObject({ role: 'user', hasError: true, status: 'error' });
    expect(notices.flat().map((n) => n.title)).toContain('Model is temporarily not responding');
    expect(await eventTypes('refused')).toContain('reply.failed');
  });

  it('gives up on a stream that goes silent, keeping the partial text and marking the prompt', async () => {
    // The gateway's own stall limit is 30 s; the engine's guard (shortened here) ends the wait first.
    upstream.setScript({ ...textReply('Started but', { delayMs: 5 }), end: 'stall' });
    const engine = newEngine('silent', 400);
    const result = await engine.sendMessage({ slug: null, prompt: 'Hello?', model: 'fake-model' });
    if (!result.ok) throw new Error(result.error);
    const view = await conversation(engine, result.slug, (v) => !v.pending && v.messages.some((m) => m.hasError));
    expect(view.messages[0]).toMatchObject({ role: 'user', hasError: true, error: 'The reply stopped arriving: no data for too long.' });
    expect(view.messages[1]).toMatchObject({ role: 'assistant', text: 'Started but', isPartial: true, status: 'done' });
  });

  it('interrupts a reply left streaming by an engine that went away when the gateway no longer has it, keeping its checkpoint and the prompt', async () => {
    const db = new ParleyDB('orphan');
    await db.open();
    const at = 1_763_700_000_000;
    const base = { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: at };
    const userRow: MessageRow = { id: 1, conversationSlug: 'c-1', timestamp: at, role: 'user', prompt: 'Long story please', model: 'fake-model', status: 'done', parentMessageId: null, ...base };
    const replyRow: MessageRow = { ...userRow, id: 2, role: 'assistant', prompt: '', status: 'pending', parentMessageId: 1, timestamp: at + 1 };
    const events: NewEvent[] = [
      makeEvent('conversation.created', { conversation: { id: 1, uuid: 'u-1', slug: 'c-1', name: 'Long story please', createdAt: at, updatedAt: at, latestMessage: '', isMediaOnly: false } }, 'e1', at),
      makeEvent('message.added', { message: userRow }, 'e2', at),
      makeEvent('message.added', { message: replyRow }, 'e3', at),
      makeEvent('reply.started', { messageId: 2, conversationSlug: 'c-1', model: 'fake-model', requestId: 'r-1', at }, 'e4', at),
      makeEvent('reply.checkpointed', { messageId: 2, conversationSlug: 'c-1', text: 'Once upon a time', thinking: '', at: at + 2000 }, 'e5', at + 2000),
    ];
    await appendEvents(db, events);
    db.close();

    const engine = newEngine('orphan');
    await engine.whenStarted();
    const view = await conversation(engine, 'c-1', () => true);
    expect(view.pending).toBe(false);
    expect(view.messages[0]).toMatchObject({ role: 'user', text: 'Long story please', status: 'done' });
    expect(view.messages[1]).toMatchObject({ role: 'assistant', text: 'Once upon a time', status: 'error', interrupted: true, error: INTERRUPTED_REASON });
    expect((await eventTypes('orphan')).at(-1)).toBe('reply.interrupted');
  });

  it('coalesces session refreshes that arrive during a refresh into one follow-up', async () => {
    const engine = newEngine('session');
    await engine.whenStarted();
    await engine.refreshSession();
    const before = sessionCalls;
    await Promise.all([engine.refreshSession(), engine.refreshSession(), engine.refreshSession(), engine.refreshSession()]);
    expect(sessionCalls - before).toBe(2);
  });
});
