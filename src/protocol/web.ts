/**
 * Wire types of web search, scraping and starter suggestions (docs/protocol.md, "Web search, scraping and
 * suggestions"). Shared by the gateway (src/server/search, scrape, suggestions) and the engine.
 */
import { z } from 'zod';
import { RequestIdSchema } from './request-id';
import type { SuggestionKind } from './web-limits';

export { LOW_BALANCE_FREQUENCY, LOW_BALANCE_NANO, LOW_BALANCE_USD, MAX_SCRAPE_URLS, NO_BALANCE_FREQUENCY, SCRAPE_PRICE_MICRO_PER_PAGE, SEARCH_STATUS_UNKNOWN, SUGGESTION_COUNTS, TOO_MANY_SCRAPE_URLS, type SuggestionKind, MODEL_SUGGESTION_COUNTS, rankModelSuggestions, shownModelSuggestions, type ModelSuggestionsResponse } from './web-limits';

/** The most text kept of one scraped page (the gateway cuts extracted text there; a message stores no more). */
export const SCRAPED_CONTENT_MAX_CHARS = 20_000;
export const MAX_URL_CHARS = 2000;
export const MAX_SEARCH_QUERY_CHARS = 2000;

export type SearchDepth = 'standard' | 'deep';

/** Spec 001 section 9 (feed facts): web search costs $0.006 standard and $0.06 deep. Micro-USD. */
export const SEARCH_PRICE_MICRO: Record<SearchDepth, number> = { standard: 6_000, deep: 60_000 };

export const WebSearchRequestSchema = z.strictObject({
  query: z.string().trim().min(1).max(MAX_SEARCH_QUERY_CHARS),
  depth: z.enum(['standard', 'deep']).default('standard'),
  requestId: RequestIdSchema,
});
export type WebSearchRequest = z.input<typeof WebSearchRequestSchema>;

export interface WebSource {
  title: string;
  url: string;
  snippet: string;
}

export interface WebSearchResponse {
  results: WebSource[];
  provider: string;
  depth: SearchDepth;
  /** USD charged, a number like the reply metadata's cost. */
  cost: number;
  paymentSource: 'USD' | 'nano';
}


/** GET /api/web-search: whether search can be used, and why not. */
export interface WebSearchStatus {
  available: boolean;
  provider: string | null;
  depths: SearchDepth[];
  /** USD per search by depth, decimal strings. */
  prices: Record<SearchDepth, string>;
  /** Why search is unavailable (shown by the switch). */
  reason: string | null;
}

export const ScrapeRequestSchema = z.strictObject({
  urls: z.array(z.string().trim().min(1).max(MAX_URL_CHARS)).min(1),
  requestId: RequestIdSchema,
});
export type ScrapeRequest = z.input<typeof ScrapeRequestSchema>;

export interface ScrapedPage {
  /** The URL as asked. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  title: string;
  content: string;
  truncated: boolean;
}

export interface ScrapeFailure {
  url: string;
  /** PRIVATE_ADDRESS, SCHEME_NOT_ALLOWED, BAD_URL, DNS_FAILED, TOO_MANY_REDIRECTS, HTTP_ERROR, UNSUPPORTED_CONTENT, TOO_LARGE, TIMEOUT, FETCH_FAILED, NO_TEXT, READ_FAILED, BUSY */
  error: string;
  message: string;
}

export interface ScrapeResponse {
  pages: ScrapedPage[];
  failures: ScrapeFailure[];
  cost: number;
  paymentSource: 'USD' | 'nano';
}


export interface Suggestion {
  id: string;
  title: string;
  prompt: string;
  /** A CSS linear-gradient() of two or three hex colours, checked when the data is loaded. */
  gradient: string;
  /** Image suggestions: the model, category and resolution they were written for. */
  model?: string;
  category?: string;
  resolution?: string;
}

export interface SuggestionsResponse {
  kind: SuggestionKind;
  suggestions: Suggestion[];
}


/**
 * The reply metadata's `webNotice` (and the X-Parley-Web-Search: not-run header) when a POST /api/stream-gpt request
 * names web context: the reply endpoint never searches or scrapes; the caller does that first (docs/decisions.md).
 */
export const WEB_NOT_RUN_NOTICE =
  'This endpoint does not search the web or scrape pages: the \':online\' suffix, transactionDetails.linkupDepth and scrapedUrls only label the request. Search with POST /api/web-search and scrape with POST /api/scrape first, then send their results in the messages.';
