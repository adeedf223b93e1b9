/**
 * GET/POST /api/web-search against a fake search server on loopback: each provider's adapter, the prices of spec
 * 001 section 9 charged as their own ledger entries, nothing charged on failure, and the switch's status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSearchResponse, WebSearchStatus } from '../../../src/protocol/web';
import { ConfigError } from '../../../src/server/env-vars';
import { loadSearchConfig } from '../../../src/server/web/search-config';
import { KEY, startFakeSearch, type FakeSearch } from './fake-search';
import { webGateway } from './helpers';

const RESULTS = [
  { title: 'Sourdough basics', url: 'https://bread.example/basics', content: 'Feed your starter twice a day.' },
  { title: 'Hostile <img src=x onerror=alert(1)>', url: 'javascript:alert(1)', content: 'dropped: not http' },
  { title: 'Data link', url: 'data:text/html,<script>alert(1)</script>', content: 'dropped too' },
  { title: '', url: 'https://oven.example/temps', content: 'Bake at   250 °C\n\nwith steam.' },
  { title: 'Duplicate', url: 'https://bread.example/basics', content: 'same URL again' },
];

let fake: FakeSearch;
beforeAll(async () => {
  fake = await startFakeSearch(RESULTS);
});
afterAll(async () => {
  await fake.close();
});

let n = 0;
const search = async (gw: Awaited<ReturnType<typeof webGateway>>, query: string, depth?: 'standard' | 'deep') => {
  const res = await gw.post('/api/web-search', { query, ...(depth ? { depth } : {}), requestId: `search-test-${++n}` });
  return { status: res.status, body: (await res.json()) as WebSearchResponse & { error?: string; message?: string } };
};

describe('web search providers', () => {
  it.each([
    ['searxng', { PARLEY_SEARXNG_URL: '' }],
    ['linkup', { PARLEY_LINKUP_API_KEY: KEY, PARLEY_LINKUP_URL: '/v1' }],
    ['brave', { PARLEY_BRAVE_API_KEY: KEY, PARLEY_BRAVE_URL: '/res/v1' }],
  ])('%s: clean, numbered-ready results, charged $0.006 once', { timeout: 60_000 }, async (name, env) => {
    const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, k.endsWith('_URL') ? `${fake.url}${v}` : v]));
    const gw = await webGateway({ search: loadSearchConfig(resolved) });
    try {
      const status = (await (await gw.get('/api/web-search')).json()) as WebSearchStatus;
      expect(status).toMatchObject({ available: true, provider: name, prices: { standard: '0.006000', deep: '0.060000' }, reason: null });

      const asked = fake.queries.length;
      const poor = await search(gw, 'how to bake sourdough');
      expect(poor.status).toBe(402);
      expect(poor.body.message).toBe('Insufficient balance: a standard web search needs 0.006000 USD or 0.006000 XNO available');
      expect(fake.queries.length).toBe(asked); // refused before the provider was asked

      await gw.credit(1_000_000n);
      const { status: code, body } = await search(gw, 'how to bake sourdough');
      expect(code, JSON.stringify(body)).toBe(200);
      expect(fake.queries.at(-1)).toMatchObject({ api: name, q: 'how to bake sourdough' });
      expect(body.results).toEqual([
        { title: 'Sourdough basics', url: 'https://bread.example/basics', snippet: 'Feed your starter twice a day.' },
        { title: 'oven.example', url: 'https://oven.example/temps', snippet: 'Bake at 250 °C with steam.' },
      ]);
      expect(body.cost).toBe(0.006);
      expect((await gw.balance()).usdMicro).toBe(1_000_000n - 6_000n);
      const entries = await gw.db.query<{ applied_usd_micro: string; note: string }>(
        `SELECT applied_usd_micro::text AS applied_usd_micro, note FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`,
        [gw.session.data.id],
      );
      expect(entries).toEqual([{ applied_usd_micro: '6000', note: `web-search standard ${name}` }]);
    } finally {
      await gw.close();
    }
  });

  it('linkup deep costs $0.06 and asks for depth deep; providers without deep refuse it', async () => {
    const gw = await webGateway({ search: loadSearchConfig({ PARLEY_LINKUP_API_KEY: KEY, PARLEY_LINKUP_URL: `${fake.url}/v1` }) });
    await gw.credit(1_000_000n);
    const { body } = await search(gw, 'deep question', 'deep');
    expect(body.cost).toBe(0.06);
    expect(fake.queries.at(-1)).toMatchObject({ api: 'linkup', depth: 'deep', auth: `Bearer ${KEY}` });
    expect((await gw.balance()).usdMicro).toBe(1_000_000n - 60_000n);
    // Its own ledger entry, at the deep price, named as such (idempotency key from the request id).
    const entries = await gw.db.query<{ kind: string; applied_usd_micro: string; note: string; idempotency_key: string }>(
      `SELECT kind, applied_usd_micro::text AS applied_usd_micro, note, idempotency_key FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`,
      [gw.session.data.id],
    );
    expect(entries).toEqual([{ kind: 'charge', applied_usd_micro: '60000', note: 'web-search deep linkup', idempotency_key: `search:${gw.session.data.id}:search-test-${n}` }]);
    await gw.close();

    const sx = await webGateway({ search: loadSearchConfig({ PARLEY_SEARXNG_URL: fake.url }) });
    await sx.credit(1_000_000n);
    const refused = await search(sx, 'deep question', 'deep');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Deep search is not available with the searxng search provider');
    expect((await sx.balance()).usdMicro).toBe(1_000_000n);
    await sx.close();
  });

  it('charges nothing when the provider fails or finds nothing', async () => {
    const gw = await webGateway({ search: loadSearchConfig({ PARLEY_SEARXNG_URL: fake.url }) });
    await gw.credit(1_000_000n);
    fake.failWith(500);
    const failed = await search(gw, 'anything');
    fake.failWith(0);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'SEARCH_FAILED', message: 'Web search failed: The search provider (searxng) answered HTTP 500' });
    fake.setResults([]);
    const empty = await search(gw, 'nothing');
    fake.setResults(RESULTS);
    expect(empty.body.results).toEqual([]);
    expect(empty.body.cost).toBe(0);
    expect((await gw.balance()).usdMicro).toBe(1_000_000n);
    const holds = await gw.ledger.holds(gw.session.data.id);
    expect(holds.every((h) => h.status === 'released')).toBe(true);
    await gw.close();
  });

  it('a retried requestId is not searched or charged twice', async () => {
    const gw = await webGateway({ search: loadSearchConfig({ PARLEY_SEARXNG_URL: fake.url }) });
    await gw.credit(1_000_000n);
    const body = { query: 'once', requestId: 'same-request-id' };
    const [a, b] = await Promise.all([gw.post('/api/web-search', body), gw.post('/api/web-search', body)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((await gw.balance()).usdMicro).toBe(1_000_000n - 6_000n);
    await gw.close();
  });

  it('with no provider the status says why and a search is 503', async () => {
    const gw = await webGateway({});
    const status = (await (await gw.get('/api/web-search')).json()) as WebSearchStatus;
    expect(status).toMatchObject({ available: false, provider: null, depths: [], reason: 'Web search is not available: no search provider is configured.' });
    const { status: code, body } = await search(gw, 'x');
    expect(code).toBe(503);
    expect(body.error).toBe('SEARCH_UNAVAILABLE');
    for (const bad of [{}, { query: '', requestId: 'abcdefgh' }, { query: 'x'.repeat(2001), requestId: 'abcdefgh' }, { query: 'x', depth: 'wide', requestId: 'abcdefgh' }]) {
      expect((await gw.post('/api/web-search', bad)).status).toBe(400);
    }
    await gw.close();
  });

  it('configuration: a bad URL or an unconfigured choice stops startup', () => {
    expect(() => loadSearchConfig({ PARLEY_SEARXNG_URL: 'ftp://x' })).toThrow(ConfigError);
    expect(() => loadSearchConfig({ PARLEY_SEARCH_PROVIDER: 'brave' })).toThrow("PARLEY_SEARCH_PROVIDER is 'brave' but that provider is not configured");
    expect(loadSearchConfig({ PARLEY_SEARXNG_URL: 'http://s', PARLEY_BRAVE_API_KEY: 'k' }).provider?.name).toBe('brave');
    expect(loadSearchConfig({ PARLEY_SEARXNG_URL: 'http://s', PARLEY_BRAVE_API_KEY: 'k', PARLEY_SEARCH_PROVIDER: 'searxng' }).provider?.name).toBe('searxng');
    expect(loadSearchConfig({}).provider).toBeNull();
  });
});
