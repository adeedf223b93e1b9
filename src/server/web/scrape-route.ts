/**
 * POST /api/scrape (docs/protocol.md): fetches up to 25 unique URLs behind the SSRF guard (../net/ssrf.ts, ../net/fetch.ts)
 * and answers each page's readable text (../parse/readers/page.ts, read in the parse pool: src/server/parse/pool.ts, never on
 * the event loop), or why it could not be read. The pages are fetched at once, so the whole request takes about
 * as long as its slowest page (npm run bench -- scrape).
 *
 * Charged SCRAPE_PRICE_MICRO_PER_PAGE per page read, as its own ledger entry, through a hold of the most the
 * request can cost (./paid-work.ts); pages that fail cost nothing (one past its reading budget included),
 * and a request where every page fails costs nothing at all.
 */
import type { Hono } from 'hono';
import { MAX_SCRAPE_URLS, SCRAPE_PRICE_MICRO_PER_PAGE, ScrapeRequestSchema, type ScrapedPage, type ScrapeFailure, type ScrapeResponse } from '../../protocol/web';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import { ParseError, type ParsePool } from '../parse/pool';
import { withHold } from './paid-work';
import { fetchPage, FetchFailure } from '../net/fetch';
import { checkUrlForm, ScrapeRefusal, type ScrapeTestAllowance } from '../net/ssrf';

const MAX_BODY_BYTES = 64 * 1024;

/** A page failure's code for a parse pool error: the reader's own refusal is NO_TEXT. */
function readFailure(e: ParseError): string {
  if (e.code === 'FAILED') return 'NO_TEXT';
  if (e.code === 'BUSY') return 'BUSY';
  return 'READ_FAILED';
}

/** Reads one URL for a session: its page, or why not. Never throws. */
export async function scrapeOne(pool: ParsePool, sessionId: string, url: string, signal: AbortSignal, test?: ScrapeTestAllowance): Promise<ScrapedPage | ScrapeFailure> {
  try {
    const fetched = await fetchPage(url, { signal, test });
    const page = await pool.readPage(sessionId, fetched, signal);
    return { url, finalUrl: page.url, title: page.title, content: page.content, truncated: page.truncated };
  } catch (e) {
    if (e instanceof ScrapeRefusal || e instanceof FetchFailure) return { url, error: e.code, message: e.message };
    if (e instanceof ParseError) return { url, error: readFailure(e), message: e.message };
    return { url, error: 'FETCH_FAILED', message: 'The page could not be loaded' };
  }
}

export function registerScrapeRoute(app: Hono<AppEnv>, ctx: RouteContext, test?: ScrapeTestAllowance): void {
  app.post('/api/scrape', async (c) => {
    const body = await readJson(c, MAX_BODY_BYTES);
    if (!body.ok) return body.response;
    const parsed = ScrapeRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const urls = [...new Set(parsed.data.urls)];
    if (urls.length > MAX_SCRAPE_URLS) {
      return jsonError(c, 400, 'TOO_MANY_URLS', `At most ${MAX_SCRAPE_URLS} URLs can be scraped for one message`);
    }
    // Refuse what is wrong by its form alone before any money or network is touched.
    const failures: ScrapeFailure[] = [];
    const good: string[] = [];
    for (const url of urls) {
      try {
        checkUrlForm(url);
        good.push(url);
      } catch (e) {
        const r = e as ScrapeRefusal;
        failures.push({ url, error: r.code, message: r.message });
      }
    }
    if (good.length === 0) {
      const answer: ScrapeResponse = { pages: [], failures, cost: 0, paymentSource: 'USD' };
      c.header('Cache-Control', 'no-store');
      return c.json(answer);
    }
    ctx.parse.warm(); // the reading threads load while the pages are fetched
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    c.req.raw.signal.addEventListener('abort', onAbort, { once: true });
    const sessionId = c.get('sessionId');
    try {
      const done = await withHold(
        c,
        ctx,
        {
          key: `scrape:${sessionId}:${parsed.data.requestId}`,
          maxUsdMicro: BigInt(SCRAPE_PRICE_MICRO_PER_PAGE * good.length),
          what: `scraping ${good.length} page${good.length === 1 ? '' : 's'}`,
          note: `scrape ${good.length} url(s)`,
        },
        async () => {
          const results = await Promise.all(good.map((u) => scrapeOne(ctx.parse, sessionId, u, controller.signal, test)));
          const pages = results.filter((r): r is ScrapedPage => 'content' in r);
          for (const r of results) if (!('content' in r)) failures.push(r);
          return { value: pages, costUsdMicro: BigInt(SCRAPE_PRICE_MICRO_PER_PAGE * pages.length) };
        },
      );
      if (!done.ok) return done.response;
      const answer: ScrapeResponse = { pages: done.charged.value, failures, cost: done.charged.cost, paymentSource: done.charged.paymentSource };
      c.header('Cache-Control', 'no-store');
      return c.json(answer);
    } finally {
      c.req.raw.signal.removeEventListener('abort', onAbort);
    }
  });
  app.all('/api/scrape', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
