/**
 * The web routes: search (./search-route.ts), scraping (./scrape-route.ts) and starter suggestions
 * (../suggestions/route.ts), registered by createApp after the session middleware.
 */
import type { Hono } from 'hono';
import type { RouteContext } from '../context';
import type { AppEnv } from '../http';
import type { ScrapeTestAllowance } from '../net/ssrf';
import { registerScrapeRoute } from './scrape-route';
import { registerSuggestionsRoute } from '../suggestions/route';
import type { SearchConfig } from './search-config';
import { registerWebSearchRoute } from './search-route';

export interface WebDeps {
  /** Search provider (loadSearchConfig in ./search-config.ts); default none: search is unavailable. */
  search?: SearchConfig;
  /**
   * TEST ONLY: loopback addresses the scraper may reach, and a substitute resolver. Only an in-process caller of
   * createApp / startGateway can pass it; no environment variable sets it.
   */
  scrapeTest?: ScrapeTestAllowance;
}

export function registerWebRoutes(app: Hono<AppEnv>, ctx: RouteContext, web: WebDeps = {}): void {
  // Searching and scraping spend money and outbound capacity: the per-address limit of costly requests.
  for (const path of ['/api/web-search', '/api/scrape']) {
    app.post(path, async (c, next) => {
      const limited = await ctx.costlyLimit.check(c);
      if (limited) return limited;
      await next();
    });
  }
  registerWebSearchRoute(app, ctx, web.search ?? { provider: null, timeoutMs: 20_000 });
  registerScrapeRoute(app, ctx, web.scrapeTest);
  registerSuggestionsRoute(app, ctx);
}
