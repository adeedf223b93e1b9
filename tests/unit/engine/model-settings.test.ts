/**
 * The model settings a chat request carries (spec 000 section 7), engine side: what the user set per model
 * (setModelSettings, modelSettings.changed) is sent with POST /api/stream-gpt and, per model, with
 * POST /api/talk-to-gpt-multi, cut to what the model takes and with recommendedTier and scrapedUrls; Reset goes
 * back to the defaults; a Regenerate sends them too. The gateway's own cut is tests/unit/server/sampling.test.ts.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationView } from '../../../src/protocol/engine';
import type { Engine } from '../../../src/worker/engine';
import { startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { until } from './harness';
import { useTestGateway } from './test-gateway';

let upstream: FakeUpstream;
const env: Record<string, string> = {};
beforeAll(async () => {
  upstream = await startFakeUpstream(textReply('ok'));
  env.PARLEY_UPSTREAM_URL = upstream.url;
  env.PARLEY_UPSTREAM_MODELS = 'fake-model,other-model,o3-mini,paid-model';
  env.PARLEY_UPSTREAM_PRICING = JSON.stringify({ 'paid-model': { input: '1', output: '2' } });
});
afterAll(async () => {
  await upstream.close();
});
const { newEngine } = useTestGateway(env);

/** The bodies the engine posted, by path. */
const sent: { path: string; body: Record<string, unknown>; webSearchHeader?: string | null }[] = [];
let realFetch: typeof fetch;
beforeAll(() => {
  realFetch = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const path = String(input);
    if (!path.startsWith('/api/stream-gpt') && !path.startsWith('/api/talk-to-gpt-multi')) return realFetch(input, init);
    const entry: (typeof sent)[number] = { path, body: JSON.parse(String(init?.body)) as Record<string, unknown> };
    sent.push(entry);
    const res = await realFetch(input, init);
    entry.webSearchHeader = res.headers.get('x-parley-web-search');
    return res;
  };
});
afterAll(() => {
  globalThis.fetch = realFetch;
});
beforeEach(() => {
  sent.length = 0;
  upstream.requests.length = 0;
});

const done = (v: ConversationView) => !v.pending && v.messages.length > 1 && v.messages.every((m) => m.status === 'done' || m.status === 'error');
async function sendAndWait(engine: Engine, input: Parameters<Engine['sendMessage']>[0]): Promise<ConversationView> {
  const r = await engine.sendMessage(input);
  if (!r.ok) throw new Error(r.error);
  return until<ConversationView>(engine.observe({ kind: 'conversation', slug: r.slug }), done);
}
const streamBodies = () => sent.filter((s) => s.path === '/api/stream-gpt').map((s) => s.body);

describe('model settings in chat requests', () => {
  it('stream-gpt carries the settings the model takes, its own maxTokens, recommendedTier and the scraped pages', async () => {
    const engine = newEngine();
    expect(await engine.setModelSettings('fake-model', { temperature: 0.3, top_p: 0.7, top_k: 9, presence_penalty: 0.4, reasoning_effort: 'high', maxTokens: 222 })).toEqual({ ok: true });
    const page = { url: 'https://page.example/a', title: 'A page', content: 'Some text of the page.' };
    await sendAndWait(engine, { slug: null, prompt: 'Hello', model: 'fake-model', scrapedContent: [page] });
    const [body] = streamBodies();
    expect(body).toMatchObject({ model: 'fake-model', temperature: 0.3, top_p: 0.7, presence_penalty: 0.4, maxTokens: 222, recommendedTier: 'free', scrapedUrls: ['https://page.example/a'] });
    // Not taken by an OpenAI-compatible server's chat model (src/server/providers/sampling.ts): never sent.
    expect(body).not.toHaveProperty('top_k');
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(upstream.requests[0]?.body).toMatchObject({ temperature: 0.3, top_p: 0.7, presence_penalty: 0.4, max_tokens: 222 });
  });

  it('the scraped pages are in the messages, so the gateway reports no web notice "not-run" on the engine\'s own reply', async () => {
    const engine = newEngine();
    const page = { url: 'https://page.example/b', title: 'B page', content: 'Text of page B.' };
    const view = await sendAndWait(engine, { slug: null, prompt: 'Sum it up', model: 'fake-model', scrapedContent: [page] });
    expect(view.messages.at(-1)?.status).toBe('done');
    const [entry] = sent.filter((s) => s.path === '/api/stream-gpt');
    expect(entry?.body).toMatchObject({ scrapedUrls: ['https://page.example/b'], webContextIncluded: true });
    expect(entry?.webSearchHeader).toBeNull();
    expect(JSON.stringify(upstream.requests[0]?.body)).toContain('Text of page B.');
  });

  it('a reasoning model gets no temperature but its reasoning effort, and no scrapedUrls when no page was read', async () => {
    const engine = newEngine();
    await engine.setModelSettings('o3-mini', { temperature: 0.3, reasoning_effort: 'low' });
    await sendAndWait(engine, { slug: null, prompt: 'Think', model: 'o3-mini' });
    const [body] = streamBodies();
    expect(body).toMatchObject({ model: 'o3-mini', reasoning_effort: 'low', recommendedTier: 'free' });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('scrapedUrls');
  });

  it('values out of range are clamped; Reset to defaults sends none; the preference maxTokens is the default', async () => {
    const engine = newEngine();
    await engine.setModelSettings('fake-model', { temperature: 5, frequency_penalty: -9 });
    const v = await sendAndWait(engine, { slug: null, prompt: 'One', model: 'fake-model' });
    expect(streamBodies()[0]).toMatchObject({ temperature: 2, frequency_penalty: -2 });
    await engine.setModelSettings('fake-model', { temperature: undefined, frequency_penalty: undefined });
    expect(await until<Record<string, unknown>>(engine.observe({ kind: 'modelSettings' }), (s) => s['fake-model'] !== undefined && Object.keys(s['fake-model'] as object).length === 0)).toBeTruthy();
    sent.length = 0;
    await sendAndWait(engine, { slug: v.conversation?.slug ?? null, prompt: 'Two', model: 'fake-model' });
    const body = streamBodies()[0] ?? {};
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('frequency_penalty');
    const prefs = await until<{ maxTokens: number }>(engine.observe({ kind: 'preferences' }), () => true);
    expect(body.maxTokens).toBe(prefs.maxTokens);
    // Spec 000 section 9: max-tokens default 8192 (no preference set in this engine).
    expect(body.maxTokens).toBe(8192);
  });

  it('multi-model: each model gets its own settings in modelSettings', async () => {
    const engine = newEngine();
    await engine.setModelSettings('fake-model', { temperature: 0.2 });
    await engine.setModelSettings('other-model', { temperature: 1.5, maxTokens: 333 });
    const r = await engine.sendMessage({ slug: null, prompt: 'Both', model: 'fake-model', extraModels: ['other-model'] });
    if (!r.ok) throw new Error(r.error);
    await until<ConversationView>(engine.observe({ kind: 'conversation', slug: r.slug }), (v) => v.messages.filter((m) => m.role === 'assistant' && m.status === 'done').length === 2);
    const multi = sent.find((s) => s.path === '/api/talk-to-gpt-multi')?.body;
    expect(multi?.modelSettings).toMatchObject({ 'fake-model': { temperature: 0.2 }, 'other-model': { temperature: 1.5, maxTokens: 333 } });
    expect(multi?.recommendedTier).toBe('free');
    const of = (m: string) => upstream.requests.find((q) => q.body?.model === m)?.body;
    expect(of('fake-model')).toMatchObject({ temperature: 0.2 });
    expect(of('other-model')).toMatchObject({ temperature: 1.5, max_tokens: 333 });
  });

  it("before a conversation exists, the balance probe's conversationUUID is the spec's placeholder '{hash}'", async () => {
    const engine = newEngine();
    const r = await engine.sendMessage({ slug: null, prompt: 'Costly', model: 'paid-model' });
    expect(r.ok).toBe(false);
    expect(streamBodies()[0]).toMatchObject({ model: 'paid-model', conversationUUID: '{hash}', recommendedTier: 'paid' });
  });

  it('a Regenerate sends the model settings too', async () => {
    const engine = newEngine();
    const v = await sendAndWait(engine, { slug: null, prompt: 'Again', model: 'fake-model' });
    await engine.setModelSettings('fake-model', { top_p: 0.25 });
    sent.length = 0;
    const reply = v.messages.find((m) => m.role === 'assistant');
    const slug = v.conversation?.slug as string;
    const res = await engine.regenerate(slug, reply?.id as number);
    expect(res.ok).toBe(true);
    await until<ConversationView>(engine.observe({ kind: 'conversation', slug }), (x) => !x.pending && sent.length > 0);
    expect(streamBodies()[0]).toMatchObject({ model: 'fake-model', top_p: 0.25, recommendedTier: 'free' });
  });
});
