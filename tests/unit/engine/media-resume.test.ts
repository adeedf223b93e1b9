/**
 * Image and Audio mode replies survive the engine that sent them (issue 9: "resumable across reloads and leader
 * hand-offs because their state is in the log"): the gateway made and charged the image or the speech, the tab went
 * away before the answer reached it, and the next engine asks again with the requestId the log kept: it gets the
 * same answer, with one generation and one charge.
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MessageRow } from '../../../src/events/model';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { startFakeMedia, type FakeMedia } from '../server/fake-media';
import { fakeSpeechProviders, startFakeSpeech, type FakeSpeech } from '../server/fake-speech';
import { fetchThrough, until } from './harness';

let gateway: RunningGateway;
let fake: FakeMedia;
let speech: FakeSpeech;
const realFetch = globalThis.fetch;
/** While set, an answer of this path reaches the gateway and is read whole, but never the engine (its tab closed). */
let swallow: { path: string; answered: () => void } | null = null;

beforeAll(async () => {
  fake = await startFakeMedia();
  speech = await startFakeSpeech();
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: {
      PARLEY_OFFLINE_TOKEN_DELAY_MS: '0',
      PARLEY_TTS_PROVIDERS: fakeSpeechProviders(speech.url),
      PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, key: 'sk-test', models: ['cheap-image'], pricing: { 'cheap-image': '0.01' } }]),
    },
  });
  const through = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), gateway.url);
    const res = await through(input, init);
    const held = swallow;
    if (held && url.pathname === held.path) {
      await res.arrayBuffer();
      held.answered();
      return new Promise<Response>(() => undefined);
    }
    return res;
  };
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await fake?.close();
  await speech?.close();
});

const engines: Engine[] = [];
function newEngine(dbName: string): Engine {
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
  engines.push(engine);
  return engine;
}
afterEach(async () => {
  swallow = null;
  for (const e of engines.splice(0)) await e.dispose();
});

async function assistant(engine: Engine, slug: string, done: (m: MessageRow) => boolean): Promise<MessageRow> {
  const view = await until<{ messages: MessageRow[] }>(engine.observe({ kind: 'conversation', slug }), (v) => v.messages.some((m) => m.role === 'assistant' && done(m)));
  return view.messages.find((m) => m.role === 'assistant') as MessageRow;
}

/** Credits the engine's session (the tests share one cookie); answers what it has spent since, in micro-USD. */
async function funded(engine: Engine, usdMicro: bigint): Promise<() => Promise<bigint>> {
  await engine.whenStarted();
  await engine.refreshSession();
  const id = engine.session$.value.session?.id ?? '';
  await gateway.ledger.credit(id, { key: `seed-${crypto.randomUUID()}`, usdMicro });
  await engine.refreshSession();
  const start = (await gateway.ledger.balance(id)).usdMicro;
  return async () => start - (await gateway.ledger.balance(id)).usdMicro;
}

/** Closes `engine` (its tab) and opens the next one on the same database. */
async function handOver(engine: Engine, dbName: string): Promise<Engine> {
  await engine.dispose();
  engines.splice(engines.indexOf(engine), 1);
  return newEngine(dbName);
}

describe('an Image mode reply whose engine went away', () => {
  it('completes on the next engine with the first generation: one provider call, one charge', async () => {
    const first = newEngine('resume-image');
    const spent = await funded(first, 1_000_000n);
    let answered!: () => void;
    const gatewayAnswered = new Promise<void>((r) => (answered = r));
    swallow = { path: '/api/generate-image', answered };
    const calls = fake.requests.filter((r) => r.path === '/v1/images/generations').length;
    const sent = await first.generateImage({ slug: null, prompt: 'a lighthouse in the fog', model: 'cheap-image', settings: { seed: 5 } });
    expect(sent.ok).toBe(true);
    const slug = sent.ok ? sent.slug : '';
    await gatewayAnswered;
    expect(await spent()).toBe(10_000n);
    const pending = await assistant(first, slug, (m) => m.status === 'pending');
    expect(pending.requestId).toMatch(/^[0-9a-f-]{36}$/);

    swallow = null;
    const second = await handOver(first, 'resume-image');
    const reply = await assistant(second, slug, (m) => m.status === 'done');
    expect(reply.interrupted).not.toBe(true);
    expect(reply.images).toHaveLength(1);
    expect(reply.cost).toBeCloseTo(0.01);
    expect(await spent()).toBe(10_000n);
    expect(fake.requests.filter((r) => r.path === '/v1/images/generations').length - calls).toBe(1);
  });
});

describe('an Audio mode reply whose engine went away', () => {
  it('completes on the next engine with the speech the gateway made: one provider call, one charge', async () => {
    const first = newEngine('resume-audio');
    const spent = await funded(first, 1_000_000n);
    let answered!: () => void;
    const gatewayAnswered = new Promise<void>((r) => (answered = r));
    swallow = { path: '/api/tts', answered };
    const text = 'The lighthouse keeper reads the evening news aloud.';
    const sent = await first.sendMessage({ slug: null, prompt: text, model: 'tts-1', mode: 'audio', speech: { voice: 'nova', speed: 1.25 } });
    expect(sent.ok).toBe(true);
    const slug = sent.ok ? sent.slug : '';
    await gatewayAnswered;
    // tts-1: $0.015 per 1000 characters.
    const price = BigInt(text.length * 15);
    expect(await spent()).toBe(price);
    const pending = await assistant(first, slug, (m) => m.status === 'pending');
    expect(pending.speechChoice).toEqual({ voice: 'nova', speed: 1.25 });

    swallow = null;
    const second = await handOver(first, 'resume-audio');
    const reply = await assistant(second, slug, (m) => m.status === 'done');
    expect(reply.interrupted).not.toBe(true);
    expect(reply.audio?.chunks).toHaveLength(1);
    expect(reply.audio?.chunks[0]?.bytes).toBeGreaterThan(0);
    expect(reply.audio).toMatchObject({ voice: 'nova', speed: 1.25 });
    expect(await spent()).toBe(price);
    expect(speech.calls.filter((c) => (c.body as { input?: string } | null)?.input === text)).toHaveLength(1);
  });
});
