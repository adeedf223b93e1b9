/**
 * GET /api/web-search: whether web search can be used (the composer's switch), its depths and prices.
 * POST /api/web-search: one search, charged at the feed's price for its depth ($0.006 standard, $0.06 deep, spec
 * 001 section 9) as its own ledger entry, through a hold (./paid-work.ts). A failed search costs nothing.
 */
import type { Hono } from 'hono';
import { SEARCH_PRICE_MICRO, WebSearchRequestSchema, type WebSearchResponse, type WebSearchStatus } from '../../protocol/web';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import { formatUsdMicro } from '../money/amounts';
import type { SearchConfig } from './search-config';
import { withHold } from './paid-work';
import { SearchProviderError } from './search-providers';

const MAX_BODY_BYTES = 16 * 1024;

export const SEARCH_UNAVAILABLE_REASON = 'Web search is not available: no search provider is configured.';

export function searchStatus(config: SearchConfig): WebSearchStatus {
  const prices = { standard: formatUsdMicro(BigInt(SEARCH_PRICE_MICRO.standard)), deep: formatUsdMicro(BigInt(SEARCH_PRICE_MICRO.deep)) };
  const p = config.provider;
  if (!p) return { available: false, provider: null, depths: [], prices, reason: SEARCH_UNAVAILABLE_REASON };
  return { available: true, provider: p.name, depths: [...p.depths], prices, reason: null };
}

export function registerWebSearchRoute(app: Hono<AppEnv>, ctx: RouteContext, config: SearchConfig): void {
  app.get('/api/web-search', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(searchStatus(config));
  });

  app.post('/api/web-search', async (c) => {
    const body = await readJson(c, MAX_BODY_BYTES);
    if (!body.ok) return body.response;
    const parsed = WebSearchRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const { query, depth, requestId } = parsed.data;
    const provider = config.provider;
    if (!provider) return jsonError(c, 503, 'SEARCH_UNAVAILABLE', SEARCH_UNAVAILABLE_REASON);
    if (!provider.depths.includes(depth)) {
      return jsonError(c, 400, 'DEPTH_UNAVAILABLE', `Deep search is not available with the ${provider.name} search provider`);
    }
    const signal = AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(config.timeoutMs)]);
    const sessionId = c.get('sessionId');
    let done;
    try {
      done = await withHold(
        c,
        ctx,
        { key: `search:${sessionId}:${requestId}`, maxUsdMicro: BigInt(SEARCH_PRICE_MICRO[depth]), what: `a ${depth} web search`, note: `web-search ${depth} ${provider.name}` },
        async () => {
          const results = await provider.search(query, depth, signal);
          // A search that found nothing gave the user nothing: not charged.
          return { value: results, costUsdMicro: results.length > 0 ? BigInt(SEARCH_PRICE_MICRO[depth]) : 0n };
        },
      );
    } catch (e) {
      if (e instanceof SearchProviderError) {
        ctx.log(`web-search: ${e.message}`);
        return jsonError(c, 502, 'SEARCH_FAILED', `Web search failed: ${e.message}`);
      }
      throw e;
    }
    if (!done.ok) return done.response;
    const answer: WebSearchResponse = { results: done.charged.value, provider: provider.name, depth, cost: done.charged.cost, paymentSource: done.charged.paymentSource };
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  app.all('/api/web-search', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use GET or POST'));
}
