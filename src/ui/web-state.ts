/**
 * Ephemeral web state of the composer (valtio, DESIGN rule 7): the pages scraped for the message being written
 * (its chips), the URLs the user declined to scrape, and whether web search can be used. Sent with the message,
 * then cleared.
 */
import { proxy } from 'valtio';
import type { ScrapedPage, WebSearchStatus } from '../protocol/web';
import { MAX_SCRAPE_URLS } from '../protocol/web-limits';
import type { SendMessageInput } from '../protocol/engine';
import { composer } from './composer-state';

export const web = proxy({
  /** Scraped pages of the message being written, in the order they were scraped. */
  pages: [] as ScrapedPage[],
  /** URLs the user chose not to scrape ("Not now"), or that failed: not offered again for this message. */
  declined: [] as string[],
  /** URLs being scraped now. */
  scraping: [] as string[],
  /** GET /api/web-search, once asked. */
  status: null as WebSearchStatus | null,
  /** Names this message's draft to the engine, which counts its scrapes in flight (a new one per message). */
  draftKey: crypto.randomUUID(),
});

const TRAILING = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}', "'", '"', '>']);

/**
 * The http(s) URLs in a text, in order, unique, at most MAX_SCRAPE_URLS. The pattern has a single unbounded class
 * (no nesting), so it runs in linear time on any text; trailing punctuation is trimmed by hand.
 */
export function findUrls(text: string): string[] {
  if (!text.includes('http')) return [];
  const out: string[] = [];
  for (const m of text.matchAll(/https?:\/\/[^\s<>"'`]+/g)) {
    let url = m[0];
    while (url.length > 0 && TRAILING.has(url[url.length - 1] ?? '')) url = url.slice(0, -1);
    try {
      const u = new URL(url);
      if (u.hostname === '') continue;
    } catch {
      continue;
    }
    if (!out.includes(url)) out.push(url);
    if (out.length >= MAX_SCRAPE_URLS) break;
  }
  return out;
}

/** URLs of the text not yet scraped, being scraped or declined. */
export function newUrls(text: string): string[] {
  const known = new Set([...web.pages.map((p) => p.url), ...web.declined, ...web.scraping]);
  return findUrls(text).filter((u) => !known.has(u));
}

export function clearWebDraft(): void {
  web.pages = [];
  web.declined = [];
  web.draftKey = crypto.randomUUID();
}

/** What a send carries from the web state: the scraped pages, and web search when the switch is on and usable. */
export function webSendExtras(depth: 'standard' | 'deep'): Pick<SendMessageInput, 'scrapedContent' | 'scrapedUrls' | 'webSearch'> {
  const out: Pick<SendMessageInput, 'scrapedContent' | 'scrapedUrls' | 'webSearch'> = {};
  if (web.pages.length > 0) {
    out.scrapedContent = web.pages.map((p) => ({ url: p.url, title: p.title, content: p.content }));
    out.scrapedUrls = web.pages.map((p) => p.url);
  }
  const status = web.status;
  if (status?.available && composer.webSearch) out.webSearch = { depth: depth === 'deep' && status.depths.includes('deep') ? 'deep' : 'standard' };
  return out;
}
