/**
 * Model settings through the gateway (spec 000 section 7): each upstream gets only the settings it takes, a
 * reasoning model no temperature, unknown ones are dropped, values are clamped; the catalogue lists what each model
 * takes (ModelInfo.parameters) for the "Model settings" panel.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isReasoningModel, modelParams, OPENAI_PARAMS, OPENROUTER_PARAMS, passSampling, upstreamParams } from '../../../src/server/providers/sampling';
import { samplingFromSettings, SAMPLING_NAMES } from '../../../src/protocol/sampling';
import { loadConfig } from '../../../src/server/config';
import { ConfigError } from '../../../src/server/env-vars';
import { OFFLINE_MODEL_ID } from '../../../src/server/providers/offline';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { chatBody, newSession, postStream, readStream, testGateway, type TestGateway } from './helpers';

describe('which settings an upstream takes', () => {
  it('by URL: OpenRouter every one, any other OpenAI-compatible server the OpenAI set; a configured list wins', () => {
    expect(upstreamParams('https://openrouter.ai/api/v1', null)).toEqual(SAMPLING_NAMES);
    expect(upstreamParams('https://api.openai.com/v1', null)).toEqual(OPENAI_PARAMS);
    expect(upstreamParams('http://127.0.0.1:11434/v1', null)).toEqual(OPENAI_PARAMS);
    expect(upstreamParams('http://127.0.0.1:8000/v1', ['temperature', 'top_k'])).toEqual(['temperature', 'top_k']);
    expect(OPENAI_PARAMS).not.toContain('top_k');
    expect(OPENROUTER_PARAMS).toContain('top_a');
  });

  it('a reasoning model takes reasoning_effort and none of temperature, top_p or the penalties; other models the reverse', () => {
    for (const id of ['o1', 'o3-mini', 'o4-mini', 'openai/o3', 'gpt-5', 'gpt-5-mini', 'deepseek-reasoner']) expect(isReasoningModel(id), id).toBe(true);
    for (const id of ['gpt-4o', 'chatgpt-4o-latest', 'gpt-5-chat-latest', 'llama3.2', 'omni-model', 'deepseek-chat']) expect(isReasoningModel(id), id).toBe(false);
    expect(modelParams(OPENAI_PARAMS, 'o3-mini')).toEqual(['stop', 'reasoning_effort']);
    expect(modelParams(OPENAI_PARAMS, 'gpt-4o')).toEqual(['temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'stop']);
  });

  it('passSampling drops what the model does not take and clamps a Claude temperature to 1', () => {
    const asked = { temperature: 1.7, top_p: 0.9, top_k: 40, min_p: 0.1, reasoning_effort: 'high' as const, stop: 'END', maxTokens: 99 };
    expect(passSampling(asked, modelParams(OPENAI_PARAMS, 'gpt-4o'), 'gpt-4o')).toEqual({ temperature: 1.7, top_p: 0.9, stop: 'END' });
    expect(passSampling(asked, modelParams(OPENROUTER_PARAMS, 'anthropic/claude-3.5-sonnet'), 'anthropic/claude-3.5-sonnet')).toEqual({ temperature: 1, top_p: 0.9, top_k: 40, min_p: 0.1, stop: 'END' });
    expect(passSampling(asked, modelParams(OPENAI_PARAMS, 'o3-mini'), 'o3-mini')).toEqual({ reasoning_effort: 'high', stop: 'END' });
    expect(passSampling(asked, [], OFFLINE_MODEL_ID)).toEqual({});
  });

  it('stored settings are clamped and cut to the model, unknown keys and bad values left out', () => {
    const stored = { temperature: 7, top_p: -1, top_k: 12.6, presence_penalty: 'x', seed: 3, reasoning_effort: 'extreme', maxTokens: 2_000_000.4, stop: '' };
    expect(samplingFromSettings(stored, ['temperature', 'top_p', 'top_k', 'presence_penalty', 'reasoning_effort', 'stop'])).toEqual({ temperature: 2, top_p: 0, top_k: 13, maxTokens: 1_000_000 });
    expect(samplingFromSettings({ temperature: 0.3, maxTokens: 500 }, [])).toEqual({ maxTokens: 500 });
  });

  it('PARLEY_UPSTREAM_PARAMS and PARLEY_PROVIDERS[].params configure the list; an unknown name stops startup', () => {
    const c = loadConfig({ PARLEY_UPSTREAM_URL: 'http://127.0.0.1:1/v1', PARLEY_UPSTREAM_PARAMS: 'temperature, top_k' });
    expect(c.upstreams[0]?.params).toEqual(['temperature', 'top_k']);
    expect(loadConfig({ PARLEY_UPSTREAM_URL: 'http://127.0.0.1:1/v1', PARLEY_UPSTREAM_PARAMS: 'none' }).upstreams[0]?.params).toEqual([]);
    expect(loadConfig({ PARLEY_UPSTREAM_URL: 'http://127.0.0.1:1/v1' }).upstreams[0]?.params).toBeNull();
    expect(() => loadConfig({ PARLEY_PROVIDERS: JSON.stringify([{ url: 'http://127.0.0.1:1/v1', params: ['temprature'] }]) })).toThrow(ConfigError);
  });
});

describe('the routes pass each upstream what it takes', () => {
  let up: FakeUpstream;
  let gw: TestGateway;
  beforeAll(async () => {
    up = await startFakeUpstream(textReply('ok'));
    gw = await testGateway({
      PARLEY_PROVIDERS: JSON.stringify([
        { name: 'fake', url: up.url, models: ['gpt-4o', 'o3-mini'] },
        { name: 'wide', url: up.url, models: ['llama-wide'], params: ['temperature', 'top_k', 'min_p', 'repetition_penalty'] },
      ]),
    });
  });
  afterAll(async () => {
    await up.close();
    await gw.close();
  });
  beforeEach(() => {
    up.requests.length = 0;
  });

  it('GET /api/models lists what each model takes', async () => {
    const s = await newSession(gw.app);
    const res = await gw.app.request('/api/models', { headers: { cookie: s.cookie } });
    const { models } = (await res.json()) as { models: { id: string; parameters?: string[] }[] };
    const byId = new Map(models.map((m) => [m.id, m.parameters]));
    expect(byId.get('gpt-4o')).toEqual(['temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'stop']);
    expect(byId.get('o3-mini')).toEqual(['stop', 'reasoning_effort']);
    expect(byId.get('llama-wide')).toEqual(['temperature', 'top_k', 'min_p', 'repetition_penalty']);
    expect(byId.get(OFFLINE_MODEL_ID)).toEqual([]);
  });

  const every = { temperature: 0.4, top_p: 0.8, top_k: 30, frequency_penalty: 0.5, presence_penalty: -0.5, repetition_penalty: 1.1, min_p: 0.05, top_a: 0.2, reasoning_effort: 'low' as const, stop: ['###'] };

  it('stream-gpt: a chat model gets its settings, a reasoning model no temperature but its reasoning_effort', async () => {
    const s = await newSession(gw.app);
    await readStream(await postStream(gw.app, s.cookie, chatBody('gpt-4o', 'hi', { ...every, maxTokens: 321, recommendedTier: 'free', scrapedUrls: ['https://a.example/'] })));
    const body = up.requests[0]?.body ?? {};
    expect(body).toMatchObject({ model: 'gpt-4o', max_tokens: 321, temperature: 0.4, top_p: 0.8, frequency_penalty: 0.5, presence_penalty: -0.5, stop: ['###'] });
    for (const k of ['top_k', 'repetition_penalty', 'min_p', 'top_a', 'reasoning_effort', 'recommendedTier', 'scrapedUrls']) expect(body, k).not.toHaveProperty(k);

    await readStream(await postStream(gw.app, s.cookie, chatBody('o3-mini', 'hi', every)));
    const reasoning = up.requests[1]?.body ?? {};
    expect(reasoning).toMatchObject({ model: 'o3-mini', reasoning_effort: 'low', stop: ['###'] });
    for (const k of ['temperature', 'top_p', 'frequency_penalty', 'presence_penalty']) expect(reasoning, k).not.toHaveProperty(k);
  });

  it('stream-gpt: an unknown setting is dropped before validation reaches the upstream; out of range is a 400', async () => {
    const s = await newSession(gw.app);
    await readStream(await postStream(gw.app, s.cookie, { ...chatBody('llama-wide', 'hi', { top_k: 12 }), mirostat: 2, logit_bias: { 1: 100 } }));
    const body = up.requests[0]?.body ?? {};
    expect(body).toMatchObject({ top_k: 12 });
    expect(body).not.toHaveProperty('mirostat');
    expect(body).not.toHaveProperty('logit_bias');
    const bad = await postStream(gw.app, s.cookie, chatBody('gpt-4o', 'hi', { top_p: 1.5 }));
    expect(bad.status).toBe(400);
  });

  it('talk-to-gpt-multi: modelSettings gives each model its own settings over the shared ones', async () => {
    const s = await newSession(gw.app);
    const res = await gw.app.request('/api/talk-to-gpt-multi', {
      method: 'POST',
      headers: { cookie: s.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({
        conversationUUID: 'c-1',
        models: ['gpt-4o', 'llama-wide', 'o3-mini'],
        prompt: 'Hello',
        temperature: 0.9,
        maxTokens: 200,
        modelSettings: { 'gpt-4o': { temperature: 0.2, maxTokens: 150 }, 'llama-wide': { top_k: 5, min_p: 0.3 }, 'o3-mini': { reasoning_effort: 'high' } },
        isMultiModel: true,
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const of = (m: string) => up.requests.find((r) => r.body?.model === m)?.body ?? {};
    expect(of('gpt-4o')).toMatchObject({ temperature: 0.2, max_tokens: 150 });
    expect(of('llama-wide')).toMatchObject({ temperature: 0.9, top_k: 5, min_p: 0.3, max_tokens: 200 });
    expect(of('o3-mini')).toMatchObject({ reasoning_effort: 'high', max_tokens: 200 });
    expect(of('o3-mini')).not.toHaveProperty('temperature');
  });
});
