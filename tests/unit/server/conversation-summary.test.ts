import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TITLE_MAX_CHARS } from '../../../src/protocol/api';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { type Env } from '../../../src/server/env-vars';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { clampTitle, deterministicTitle } from '../../../src/server/chat/title';
import { TITLE_INSTRUCTIONS } from '../../../src/server/chat/conversation-summary';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { newSession } from './helpers';

const CONTENT = 'User: How do I bake sourdough bread at home with a starter?\n\nAssistant: Feed the starter, mix, fold, proof, bake.';

let db: Db;
let upstream: FakeUpstream;
beforeAll(async () => {
  db = await openDatabase({ kind: 'memory' });
  upstream = await startFakeUpstream(textReply('"Sourdough Baking at Home."', { usage: { prompt_tokens: 100, completion_tokens: 10 } }), {
    models: ['cheap-model'],
  });
});
afterAll(async () => {
  await upstream.close();
  await db.close();
});

async function gateway(env: Env, titleModel: string | null) {
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', ...env });
  const catalogue = await Catalogue.create(config.upstreams, { offlineTokenDelayMs: 0, discoveryTimeoutMs: 2000, log: () => undefined });
  const ledger = new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
  const app = createApp({ db, catalogue, ledger, settings: { titleModel }, log: () => undefined });
  const session = await newSession(app);
  const ask = (body: unknown) =>
    app.request('/api/conversation-summary', {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { app, ledger, session, ask };
}

describe('deterministic title (offline)', () => {
  it('takes a few salient words of the first user turn, the same every time', () => {
    const title = deterministicTitle(CONTENT);
    expect(title).toBe('Bake sourdough bread home starter');
    expect(deterministicTitle(CONTENT)).toBe(title);
  });

  it('is at most 150 characters however long the content', () => {
    const long = `User: ${'Supercalifragilisticexpialidocious'.repeat(20)} ${'x'.repeat(400)}`;
    expect([...deterministicTitle(long)].length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
    expect([...clampTitle('word '.repeat(100))].length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
    expect([...clampTitle('😀'.repeat(200))]).toHaveLength(TITLE_MAX_CHARS);
  });

  it('falls back to the first words when every word is a stopword, and never answers empty', () => {
    expect(deterministicTitle('User: what is it')).toBe('What is it');
    expect(deterministicTitle('User: ???')).toBe('New conversation');
  });

  it('cleans a model answer: first line, no quotes, no "Title:" and no trailing period', () => {
    expect(clampTitle('\n"Title: Sourdough at Home."\nextra')).toBe('Sourdough at Home');
  });
});

describe('POST /api/conversation-summary', () => {
  it('answers the deterministic title when no title model is configured', async () => {
    const { ask } = await gateway({}, null);
    const res = await ask({ conversationContent: CONTENT });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ summary: 'Bake sourdough bread home starter' });
  });

  it('rejects bad input with a 4xx JSON error', async () => {
    const { ask, app } = await gateway({}, null);
    for (const body of [{}, { conversationContent: '   ' }, { conversationContent: 5 }, { conversationContent: 'x'.repeat(20_001) }, 'not json']) {
      const res = await ask(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'BAD_REQUEST' });
    }
    const anonymous = await app.request('/api/conversation-summary', { method: 'POST', body: JSON.stringify({ conversationContent: 'x' }) });
    expect(anonymous.status).toBeGreaterThanOrEqual(400);
    expect(anonymous.status).toBeLessThan(500);
  });

  it('asks the configured title model and cleans its answer (free model: no charge)', async () => {
    const { ask } = await gateway({ PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'cheap-model' }, 'cheap-model');
    const before = upstream.requests.length;
    const res = await ask({ conversationContent: CONTENT });
    expect(await res.json()).toEqual({ summary: 'Sourdough Baking at Home' });
    const sent = upstream.requests.slice(before).find((r) => r.body !== null);
    expect(sent?.body?.messages?.[1]).toMatchObject({ role: 'user', content: CONTENT });
  });

  it('charges a priced title model through a ledger hold, settled at the actual cost', async () => {
    const env = { PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'cheap-model', PARLEY_UPSTREAM_PRICING: '{"cheap-model":{"input":"1","output":"2"}}' };
    const { ask, ledger, session } = await gateway(env, 'cheap-model');
    await ledger.credit(session.data.id, { key: `seed:${session.data.id}`, usdMicro: 1_000_000n });
    const res = await ask({ conversationContent: CONTENT });
    expect(await res.json()).toEqual({ summary: 'Sourdough Baking at Home' });
    // 100 input tokens at 1 USD/M + 10 output tokens at 2 USD/M = 120 micro-dollars.
    expect((await ledger.balance(session.data.id)).usdMicro).toBe(1_000_000n - 120n);
  });

  it('a priced title model that fails mid-answer is charged for what it produced, and the deterministic title answers', async () => {
    const dropping = await startFakeUpstream({ steps: [{ content: 'Sourdough' }, { content: ' Baking' }], end: 'drop' }, { models: ['cheap-model'] });
    try {
      const env = { PARLEY_UPSTREAM_URL: dropping.url, PARLEY_UPSTREAM_MODELS: 'cheap-model', PARLEY_UPSTREAM_PRICING: '{"cheap-model":{"input":"1","output":"2"}}' };
      const { ask, ledger, session } = await gateway(env, 'cheap-model');
      await ledger.credit(session.data.id, { key: `seed:${session.data.id}`, usdMicro: 1_000_000n });
      const res = await ask({ conversationContent: CONTENT });
      expect(await res.json()).toEqual({ summary: 'Bake sourdough bread home starter' });
      // No usage came: the prompt estimated (its characters / 4, + 8 per message) at 1 USD/M, 'Sourdough Baking'
      // (16 characters = 4 tokens) at 2 USD/M, rounded up to the micro-dollar.
      const promptChars = TITLE_INSTRUCTIONS.length + CONTENT.length;
      const expected = BigInt(Math.ceil((Math.ceil(promptChars / 4) + 16) * 1 + 4 * 2));
      expect(1_000_000n - (await ledger.balance(session.data.id)).usdMicro).toBe(expected);
      expect((await ledger.holds(session.data.id))[0]?.status).toBe('settled');
    } finally {
      await dropping.close();
    }
  });

  it('falls back to the free deterministic title when the balance cannot pay for a priced title model', async () => {
    const env = { PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'cheap-model', PARLEY_UPSTREAM_PRICING: '{"cheap-model":{"input":"1","output":"2"}}' };
    const { ask, ledger, session } = await gateway(env, 'cheap-model');
    const before = upstream.requests.length;
    const res = await ask({ conversationContent: CONTENT });
    expect(await res.json()).toEqual({ summary: 'Bake sourdough bread home starter' });
    expect(upstream.requests.length).toBe(before);
    expect((await ledger.balance(session.data.id)).usdMicro).toBe(0n);
  });
});
