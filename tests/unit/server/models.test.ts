import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelsResponse } from '../../../src/protocol/api';
import { loadConfig } from '../../../src/server/config';
import { ConfigError } from '../../../src/server/env-vars';
import { OFFLINE_MODEL_ID } from '../../../src/server/providers/offline';
import { OFFLINE_IMAGE_CHAT_MODEL_ID } from '../../../src/server/media/providers/image-chat-offline';
import { OFFLINE_VOICE_MODEL_ID } from '../../../src/protocol/speech-catalogue';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { newSession, testGateway, type TestGateway } from './helpers';

let up: FakeUpstream;
let down: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  up = await startFakeUpstream(textReply('hi'), { models: ['disc-a', 'disc-b'] });
  down = await startFakeUpstream(textReply('hi'), { modelsStatus: 500 });
  gw = await testGateway();
});
afterAll(async () => {
  await up.close();
  await down.close();
  await gw.close();
});

async function models(g: TestGateway): Promise<ModelsResponse> {
  const s = await newSession(g.app);
  const res = await g.app.request('/api/models', { headers: { cookie: s.cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as ModelsResponse;
}

/** The chat models (the built-in offline voice is listed after them whatever the configuration: docs/speech.md). */
function text(m: ModelsResponse): ModelsResponse['models'] {
  return m.models.filter((x) => x.modality === 'text');
}

describe('GET /api/models', () => {
  it('with no provider configured: only the built-in offline models (text, image lines, the voice); the text one is the default', async () => {
    const m = await models(gw);
    expect(m.defaultModel).toBe(OFFLINE_MODEL_ID);
    expect(m.models.map((x) => x.id)).toEqual([OFFLINE_MODEL_ID, OFFLINE_IMAGE_CHAT_MODEL_ID, OFFLINE_VOICE_MODEL_ID]);
    // The image-lines one (spec 000 section 7) is flagged for the engine, free, and says it is not a model.
    expect(m.models[1]).toMatchObject({ provider: 'offline', offline: true, free: true, modality: 'text', capabilities: ['chat', 'streaming', 'image-lines'] });
    expect(m.models[1]?.name).toMatch(/no AI/);
    expect(m.models[2]).toMatchObject({ modality: 'audio', offline: true, free: true, capabilities: expect.arrayContaining(['text-to-speech']) });
    expect(m.models[0]).toMatchObject({
      id: OFFLINE_MODEL_ID,
      provider: 'offline',
      offline: true,
      free: true,
      modality: 'text',
      pricing: { input: '0', output: '0' },
    });
    expect(m.models[0]?.name).toMatch(/offline/i);
    expect(m.models[0]?.name).toMatch(/no AI/);
  });

  it('lists configured upstream models with pricing as decimal strings; first upstream model is the default', async () => {
    const g = await gw.rebuild({
      PARLEY_UPSTREAM_URL: up.url,
      PARLEY_UPSTREAM_NAME: 'acme',
      PARLEY_UPSTREAM_MODELS: 'paid-1, free-1',
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'paid-1': { input: '0.15', output: '0.60' } }),
    });
    const m = await models(g);
    expect(m.defaultModel).toBe('paid-1');
    expect(text(m).map((x) => x.id)).toEqual(['paid-1', 'free-1', OFFLINE_MODEL_ID, OFFLINE_IMAGE_CHAT_MODEL_ID]);
    expect(m.models[0]).toMatchObject({ provider: 'acme', free: false, offline: false, pricing: { input: '0.15', output: '0.6' } });
    expect(m.models[1]).toMatchObject({ provider: 'acme', free: true, offline: false, pricing: { input: '0', output: '0' } });
    expect(m.models.find((x) => x.id === OFFLINE_MODEL_ID)?.offline).toBe(true);
  });

  it('discovers models with GET {base}/models when PARLEY_UPSTREAM_MODELS is absent, and tolerates failure', async () => {
    const g = await gw.rebuild({
      PARLEY_PROVIDERS: JSON.stringify([
        { name: 'broken', url: down.url },
        { name: 'disc', url: up.url },
        { name: 'dup', url: up.url, models: ['disc-a'] },
      ]),
    });
    const m = await models(g);
    // The failing provider contributes nothing; a duplicate id from a later provider is prefixed.
    expect(text(m).map((x) => `${x.provider}:${x.id}`)).toEqual(['disc:disc-a', 'disc:disc-b', 'dup:dup/disc-a', `offline:${OFFLINE_MODEL_ID}`, `offline:${OFFLINE_IMAGE_CHAT_MODEL_ID}`]);
    expect(m.defaultModel).toBe('disc-a');
    expect(g.logs.some((l) => l.includes('broken') && l.includes('discovery failed'))).toBe(true);
  });

  it('an unreachable upstream does not stop the catalogue', async () => {
    const g = await gw.rebuild({ PARLEY_UPSTREAM_URL: 'http://127.0.0.1:9/v1', PARLEY_DISCOVERY_TIMEOUT_MS: '500' });
    const m = await models(g);
    expect(text(m).map((x) => x.id)).toEqual([OFFLINE_MODEL_ID, OFFLINE_IMAGE_CHAT_MODEL_ID]);
  });
});

describe('provider configuration', () => {
  it('rejects bad values with a message naming the variable', () => {
    const bad: Record<string, string>[] = [
      { PARLEY_UPSTREAM_URL: 'not a url' },
      { PARLEY_UPSTREAM_URL: 'ftp://x/v1' },
      { PARLEY_UPSTREAM_URL: 'http://x/v1', PARLEY_UPSTREAM_PRICING: '{oops' },
      { PARLEY_UPSTREAM_URL: 'http://x/v1', PARLEY_UPSTREAM_PRICING: '{"m":{"input":"-1","output":"1"}}' },
      { PARLEY_UPSTREAM_URL: 'http://x/v1', PARLEY_UPSTREAM_PRICING: '{"m":{"input":"0.1234567","output":"1"}}' },
      { PARLEY_PROVIDERS: '{"url":"http://x"}' },
      { PARLEY_PROVIDERS: '[{"name":"a","url":"http://x"},{"name":"a","url":"http://y"}]' },
      { PARLEY_STALL_MS: 'soon' },
      { PARLEY_NANO_USD_PRICE: '0' },
      { PORT: '70000' },
    ];
    for (const env of bad) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });

  it('reads defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8787, host: '127.0.0.1', dataDir: './data', databaseUrl: null, stallMs: 30_000, offlineTokenDelayMs: 15, nanoPriceUsdMicro: 1_000_000n, upstreams: [] });
  });
});
