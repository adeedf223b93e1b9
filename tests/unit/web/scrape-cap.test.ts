/**
 * The engine holds the spec's "up to 25 unique URLs a message": a second scrape started while the first is in
 * flight counts the first's URLs, the pages already on the message count, another message's draft does not, and a
 * send never stores more than 25 pages (nor a page longer than the gateway would give).
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SCRAPE_URLS, SCRAPED_CONTENT_MAX_CHARS, TOO_MANY_SCRAPE_URLS } from '../../../src/protocol/web';
import type { ScrapeOutcome } from '../../../src/protocol/engine';
import { useTestGateway } from '../engine/test-gateway';
import { html, startTestHost, type Route } from './helpers';

let host: Awaited<ReturnType<typeof startTestHost>>;
/** Answers of /held wait here until released. */
let waiting: (() => void)[] = [];
const release = () => {
  for (const go of waiting.splice(0)) go();
};
const page = html('<article><p>A page long enough to be read as an article by the extractor.</p></article>', 'Held page');
const held: Route = (req, res) => {
  waiting.push(() => page(req, res));
};

beforeAll(async () => {
  host = await startTestHost({ '/held': held, '/now': page });
});
// The gateway warms its reading threads (pdf.js) as in production: the scrapes must not wait behind the warm-up.
// The held pages wait for release(), which a busy machine may take longer than the 10 s header cap to reach.
const { gateway, newEngine } = useTestGateway({ PARLEY_PARSE_WARM: '1' }, () => ({ allow: [{ address: '127.0.0.1', port: host.port }], timeouts: { headersMs: 300_000, totalMs: 300_000 } }));
beforeAll(async () => {
  const id = ((await (await fetch('/auth/local-session')).json()) as { data: { id: string } }).data.id;
  await gateway().ledger.credit(id, { key: `seed:${id}`, usdMicro: 1_000_000n });
});
afterAll(async () => {
  release();
  await host?.close();
});

const urls = (path: string, from: number, n: number) => Array.from({ length: n }, (_, i) => `${host.url}${path}?n=${from + i}`);

async function until(test: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(test()).toBe(true);
}

describe('the engine caps scraping at 25 unique URLs a message', () => {
  it('counts scrapes in flight and attached pages; another draft has its own 25', async () => {
    const engine = newEngine('scrape-cap');
    try {
      const draft = { key: 'draft-1', attached: [] as string[] };
      const first = engine.scrapeUrls(urls('/held', 0, 20), draft);
      await until(() => (host.hits.get('/held') ?? 0) === 20);
      // While those 20 are in flight, 10 more (2 of them the same as in flight): room for 5 of the 8 new ones.
      const again = [...urls('/now', 0, 8), ...urls('/held', 0, 2)];
      const second = await engine.scrapeUrls(again, draft);
      expect(second.ok).toBe(true);
      const s = second as Extract<ScrapeOutcome, { ok: true }>;
      expect(s.pages.map((p) => p.url)).toEqual(urls('/now', 0, 5));
      expect(s.skipped).toEqual(urls('/now', 5, 3));
      expect(host.hits.get('/now')).toBe(5);
      // Full (20 in flight, those 5 on the message now): the next one is refused before anything is fetched.
      expect(await engine.scrapeUrls(urls('/now', 50, 1), { key: 'draft-1', attached: urls('/now', 0, 5) })).toEqual({ ok: false, error: TOO_MANY_SCRAPE_URLS });
      expect(host.hits.get('/now')).toBe(5);
      // Another message's draft is not held back by this one.
      const other = await engine.scrapeUrls(urls('/now', 60, 2), { key: 'draft-2', attached: [] });
      expect(other.ok && other.pages.length).toBe(2);
      release();
      const done = await first;
      expect(done.ok && done.pages.length).toBe(20);
      expect(done.ok && done.skipped).toBeUndefined();

      // Done: the pages are on the message now. 25 attached leave no room; removing one (chip) frees one place.
      const attached = [...urls('/held', 0, 20), ...urls('/now', 0, 5)];
      const hits = host.hits.get('/now');
      expect(await engine.scrapeUrls(urls('/now', 70, 1), { key: 'draft-1', attached })).toEqual({ ok: false, error: TOO_MANY_SCRAPE_URLS });
      expect(host.hits.get('/now')).toBe(hits);
      const freed = await engine.scrapeUrls(urls('/now', 70, 2), { key: 'draft-1', attached: attached.slice(1) });
      expect(freed.ok && freed.pages.map((p) => p.url)).toEqual(urls('/now', 70, 1));
      expect(freed.ok && freed.skipped).toEqual(urls('/now', 71, 1));
      // A URL already on the message is not scraped (or charged) again.
      expect(await engine.scrapeUrls([attached[3] as string], { key: 'draft-1', attached })).toEqual({ ok: true, pages: [], failures: [], cost: 0 });
    } finally {
      release();
    }
  });

  it('a send stores at most 25 pages, each cut at the gateway cap', async () => {
    const engine = newEngine('scrape-cap-send');
    const pageOf = (i: number, content = `text ${i}`) => ({ url: `https://s${i}.example/`, title: `S${i}`, content });
    const many = Array.from({ length: MAX_SCRAPE_URLS + 1 }, (_, i) => pageOf(i));
    expect(await engine.sendMessage({ slug: null, model: '', prompt: 'read these', scrapedContent: many })).toEqual({ ok: false, error: TOO_MANY_SCRAPE_URLS });
    expect(await engine.db.messages.count()).toBe(0);
    // The same URL twice is one page; 25 unique pass; a page's text is kept up to the cap.
    const ok = await engine.sendMessage({ slug: null, model: '', prompt: 'read these', scrapedContent: [...many.slice(0, 24), pageOf(0, 'again'), pageOf(99, 'x'.repeat(SCRAPED_CONTENT_MAX_CHARS + 500))] });
    expect(ok.ok).toBe(true);
    const user = (await engine.db.messages.toArray()).find((m) => m.role === 'user');
    expect(user?.scrapedContent).toHaveLength(MAX_SCRAPE_URLS);
    expect(user?.scrapedContent?.find((p) => p.url === 'https://s0.example/')?.content).toBe('again');
    expect(user?.scrapedContent?.at(-1)?.content).toHaveLength(SCRAPED_CONTENT_MAX_CHARS);
  });
});
