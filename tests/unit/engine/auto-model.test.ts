/**
 * The Auto model on the engine (spec 000 section 3, isAutoModel and autoModelSelectedModel) against the gateway
 * and a fake upstream with a priced catalogue: the cheapest capable model answers, an image sends it to a model
 * that takes images, an empty balance to a free one, and the choice is read back from the exported log.
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent } from '../../../src/events/catalogue';
import { decodeLog } from '../../../src/events/codec';
import type { LibraryRow, MessageRow } from '../../../src/events/model';
import { fold } from '../../../src/projections/fold';
import { AUTO_MODEL_ID } from '../../../src/protocol/auto-model';
import type { ConversationView } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { fetchThrough, until, type JarFetch } from './harness';

let upstream: FakeUpstream;
let gateway: RunningGateway;
let jar: JarFetch;
const realFetch = globalThis.fetch;
const engines: Engine[] = [];
/** How long each word of a reply takes (a slow reply keeps the conversation pending, so Send queues). */
let wordDelay = 0;

beforeAll(async () => {
  upstream = await startFakeUpstream((req) => textReply(`${String(req.body?.model)} answers`, { delayMs: wordDelay }));
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: {
      PARLEY_UPSTREAM_URL: upstream.url,
      PARLEY_UPSTREAM_MODELS: 'pricey-model,gpt-4o,cheap-model',
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'pricey-model': { input: '5', output: '15' }, 'gpt-4o': { input: '2.5', output: '10' }, 'cheap-model': { input: '0.1', output: '0.2' } }),
      PARLEY_OFFLINE_TOKEN_DELAY_MS: '0',
    },
  });
  jar = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = jar;
});
afterEach(async () => {
  wordDelay = 0;
  for (const e of engines.splice(0)) await e.dispose();
  jar.forget();
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await upstream?.close();
});

function newEngine(dbName: string): Engine {
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
  engines.push(engine);
  return engine;
}

/** Credits the engine's session so that it can use paid models. */
async function fund(engine: Engine): Promise<void> {
  await engine.whenStarted();
  await engine.refreshSession();
  await gateway.ledger.credit(engine.session$.value.session?.id ?? '', { key: `seed-${crypto.randomUUID()}`, usdMicro: 5_000_000n });
  await engine.refreshSession();
  expect(engine.session$.value.canUsePaidModels).toBe(true);
}

const done = (v: ConversationView) => v.messages.length >= 2 && v.messages.every((m) => m.status === 'done' || m.status === 'error');
const pair = (v: ConversationView) => v.messages.map((m) => [m.role, m.model, m.isAutoModel, m.autoModelSelectedModel]);

async function sendAuto(engine: Engine, input: { prompt: string; attachments?: string[] }): Promise<ConversationView> {
  const r = await engine.sendMessage({ slug: null, model: AUTO_MODEL_ID, ...input });
  if (!r.ok) throw new Error(r.error);
  return until<ConversationView>(engine.observe({ kind: 'conversation', slug: r.slug }), done);
}

describe('Auto', () => {
  it('picks the cheapest capable model, records it on both messages, and the exported log replays to the same fields', async () => {
    const engine = newEngine('auto-cheapest');
    await fund(engine);
    const v = await sendAuto(engine, { prompt: 'Hello there' });
    expect(pair(v)).toEqual([
      ['user', 'cheap-model', true, 'cheap-model'],
      ['assistant', 'cheap-model', true, 'cheap-model'],
    ]);
    expect(v.messages[1]?.text).toBe('cheap-model answers');
    const replayed = [...fold(decodeLog(await engine.exportLog()).events).rows('messages')] as MessageRow[];
    expect(replayed.map((m) => [m.role, m.model, m.isAutoModel, m.autoModelSelectedModel])).toEqual(pair(v));
  });

  it('with an image attached, picks a model that takes images', async () => {
    const engine = newEngine('auto-vision');
    await fund(engine);
    const now = Date.now();
    const item: LibraryRow = { id: 501, createdAt: now, lastModified: now, fileId: 502, name: 'dot.png', content: [], processingTime: 0, type: 'image', status: 'completed', order: 1, mimeType: 'image/png', sizeBytes: 68 };
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await engine.db.files.put({ id: 502, file: new Blob([new Uint8Array(png)], { type: 'image/png' }) });
    await engine.append([makeEvent('library.itemAdded', { item }, crypto.randomUUID(), now), makeEvent('library.itemLinked', { link: { id: 503, libraryId: 501, conversationId: 0 }, at: now }, crypto.randomUUID(), now)]);
    const v = await sendAuto(engine, { prompt: 'What is this?', attachments: ['501'] });
    expect(pair(v)).toEqual([
      ['user', 'gpt-4o', true, 'gpt-4o'],
      ['assistant', 'gpt-4o', true, 'gpt-4o'],
    ]);
  });

  it('at a $0 balance, picks a free model', async () => {
    const engine = newEngine('auto-free');
    await engine.whenStarted();
    await engine.refreshSession();
    expect(engine.session$.value.canUsePaidModels).toBe(false);
    const v = await sendAuto(engine, { prompt: 'Hello there' });
    const chosen = v.messages[0]?.autoModelSelectedModel ?? '';
    expect(engine.models$.value.models.find((m) => m.id === chosen)?.free).toBe(true);
    expect(pair(v)).toEqual([
      ['user', chosen, true, chosen],
      ['assistant', chosen, true, chosen],
    ]);
    expect(v.messages[1]?.status).toBe('done');
  });

  it('a queued Auto message chooses its model when it is sent, and is marked', async () => {
    const engine = newEngine('auto-queued');
    await fund(engine);
    wordDelay = 80;
    const first = await engine.sendMessage({ slug: null, prompt: 'Tell me a long story please', model: 'pricey-model' });
    if (!first.ok) throw new Error(first.error);
    const queued = await engine.sendMessage({ slug: first.slug, prompt: 'And then?', model: AUTO_MODEL_ID });
    expect(queued).toMatchObject({ ok: true, queued: true });
    const v = await until<ConversationView>(engine.observe({ kind: 'conversation', slug: first.slug }), (x) => done(x) && x.messages.length === 4);
    expect(pair(v)).toEqual([
      ['user', 'pricey-model', undefined, undefined],
      ['assistant', 'pricey-model', undefined, undefined],
      ['user', 'cheap-model', true, 'cheap-model'],
      ['assistant', 'cheap-model', true, 'cheap-model'],
    ]);
  });

  it('in multi-model, the reply of the model Auto chose is marked with its choice; the extra columns, chosen by hand, are not', async () => {
    const engine = newEngine('auto-multi');
    await fund(engine);
    const r = await engine.sendMessage({ slug: null, prompt: 'Hello all', model: AUTO_MODEL_ID, extraModels: ['pricey-model', 'gpt-4o'] });
    if (!r.ok) throw new Error(r.error);
    const v = await until<ConversationView>(engine.observe({ kind: 'conversation', slug: r.slug }), (x) => x.messages.length >= 4 && x.messages.every((m) => m.status === 'done' || m.status === 'error'));
    expect(pair(v)).toEqual([
      ['user', 'cheap-model', true, 'cheap-model'],
      ['assistant', 'cheap-model', true, 'cheap-model'],
      ['assistant', 'pricey-model', undefined, undefined],
      ['assistant', 'gpt-4o', undefined, undefined],
    ]);
    const replayed = [...fold(decodeLog(await engine.exportLog()).events).rows('messages')] as MessageRow[];
    expect(replayed.map((m) => [m.role, m.model, m.isAutoModel, m.autoModelSelectedModel])).toEqual(pair(v));
  });

  it('a model chosen by hand is not marked', async () => {
    const engine = newEngine('auto-not');
    await fund(engine);
    const r = await engine.sendMessage({ slug: null, prompt: 'Hello', model: 'pricey-model' });
    if (!r.ok) throw new Error(r.error);
    const v = await until<ConversationView>(engine.observe({ kind: 'conversation', slug: r.slug }), done);
    expect(pair(v)).toEqual([
      ['user', 'pricey-model', undefined, undefined],
      ['assistant', 'pricey-model', undefined, undefined],
    ]);
  });
});
