/**
 * Web search providers behind one interface (docs/gateway.md, "Web search and scraping"): SearXNG's JSON API (what
 * self-hosters run), Linkup (the spec's deep search is named after it) and Brave Search, each configured by
 * environment (./search-config.ts). Every answer is reduced to the same plain results: title, URL (http or https only,
 * anything else is dropped) and a text snippet, all bounded in length. Nothing a provider returns is trusted as
 * markup: it reaches the model and the view as text.
 */
import { tidyText } from '../parse/readers/tidy-text';

export type SearchDepth = 'standard' | 'deep';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchProvider {
  /** 'searxng', 'linkup' or 'brave'. */
  readonly name: string;
  /** Depths this provider can run; deep needs one that searches iteratively (Linkup). */
  readonly depths: readonly SearchDepth[];
  search(query: string, depth: SearchDepth, signal: AbortSignal): Promise<SearchResult[]>;
}

export class SearchProviderError extends Error {
  override name = 'SearchProviderError';
}

/** Results kept per search: the sources the model is given and the reply cites. */
export const RESULTS_PER_DEPTH: Record<SearchDepth, number> = { standard: 5, deep: 10 };
export const SNIPPET_MAX_CHARS = 1_500;
const TITLE_MAX_CHARS = 300;
/** Largest provider answer read (a search answer is a few KB; Linkup deep with content can be larger). */
const ANSWER_MAX_BYTES = 4 * 1024 * 1024;

function clipText(text: unknown, max: number): string {
  if (typeof text !== 'string') return '';
  const t = tidyText(text).replace(/\n+/g, ' ');
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** A provider's raw items reduced to safe, bounded results; non-http(s) URLs and duplicates are dropped. */
export function cleanResults(items: readonly { title?: unknown; url?: unknown; snippet?: unknown }[], limit: number): SearchResult[] {
  const out: SearchResult[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (out.length >= limit) break;
    if (typeof item.url !== 'string' || item.url.length > 2000) continue;
    let url: URL;
    try {
      url = new URL(item.url);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    out.push({ title: clipText(item.title, TITLE_MAX_CHARS) || url.hostname, url: url.href, snippet: clipText(item.snippet, SNIPPET_MAX_CHARS) });
  }
  return out;
}

async function readJsonCapped(res: Response): Promise<unknown> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > ANSWER_MAX_BYTES) throw new SearchProviderError('The search provider sent too large an answer');
  const reader = res.body?.getReader();
  if (!reader) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > ANSWER_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new SearchProviderError('The search provider sent too large an answer');
    }
    chunks.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new SearchProviderError('The search provider sent an answer that is not JSON');
  }
}

async function call(name: string, url: string, init: RequestInit, signal: AbortSignal): Promise<unknown> {
  let res: Response | null = null;
  // One retry when the connection fails before an answer: a kept-alive socket the provider closed just then.
  for (let attempt = 0; res === null; attempt++) {
    try {
      res = await fetch(url, { ...init, signal, redirect: 'error' });
    } catch (e) {
      if (signal.aborted) throw new SearchProviderError(`The search provider (${name}) took too long to answer`);
      if (attempt >= 1) throw new SearchProviderError(`The search provider (${name}) could not be reached${e instanceof Error && e.message ? `: ${e.message}` : ''}`);
    }
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new SearchProviderError(`The search provider (${name}) answered HTTP ${res.status}`);
  }
  return readJsonCapped(res);
}

function arrayAt(value: unknown, ...path: string[]): unknown[] {
  let v: unknown = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return [];
    v = (v as Record<string, unknown>)[key];
  }
  return Array.isArray(v) ? v : [];
}

function field(item: unknown, key: string): unknown {
  return typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
}

/** SearXNG: GET {base}/search?q=...&format=json (the instance must enable the json format). */
export function searxngProvider(baseUrl: string): SearchProvider {
  return {
    name: 'searxng',
    depths: ['standard'],
    async search(query, depth, signal) {
      const u = new URL(`${baseUrl}/search`);
      u.searchParams.set('q', query);
      u.searchParams.set('format', 'json');
      u.searchParams.set('safesearch', '1');
      const body = await call('searxng', u.href, { headers: { Accept: 'application/json' } }, signal);
      const items = arrayAt(body, 'results').map((r) => ({ title: field(r, 'title'), url: field(r, 'url'), snippet: field(r, 'content') }));
      return cleanResults(items, RESULTS_PER_DEPTH[depth]);
    },
  };
}

/** Linkup: POST {base}/search {q, depth, outputType: 'searchResults'} with a bearer key. */
export function linkupProvider(baseUrl: string, key: string): SearchProvider {
  return {
    name: 'linkup',
    depths: ['standard', 'deep'],
    async search(query, depth, signal) {
      const body = await call(
        'linkup',
        `${baseUrl}/search`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ q: query, depth, outputType: 'searchResults', includeImages: false }),
        },
        signal,
      );
      const items = arrayAt(body, 'results').map((r) => ({ title: field(r, 'name'), url: field(r, 'url'), snippet: field(r, 'content') }));
      return cleanResults(items, RESULTS_PER_DEPTH[depth]);
    },
  };
}

/** Brave Search: GET {base}/web/search?q=...&count=N with the X-Subscription-Token header. */
export function braveProvider(baseUrl: string, key: string): SearchProvider {
  return {
    name: 'brave',
    depths: ['standard'],
    async search(query, depth, signal) {
      const u = new URL(`${baseUrl}/web/search`);
      u.searchParams.set('q', query);
      u.searchParams.set('count', String(RESULTS_PER_DEPTH[depth]));
      u.searchParams.set('text_decorations', 'false');
      const body = await call('brave', u.href, { headers: { Accept: 'application/json', 'X-Subscription-Token': key } }, signal);
      const items = arrayAt(body, 'web', 'results').map((r) => ({ title: field(r, 'title'), url: field(r, 'url'), snippet: field(r, 'description') }));
      return cleanResults(items, RESULTS_PER_DEPTH[depth]);
    },
  };
}
