/**
 * URL scraping in the composer (spec 000 section 1; urlScrapingPreference, spec 001): URLs typed or pasted into the
 * message are offered for scraping ('ask', the default: "Scrape" or "Not now"), scraped at once ('always') or left
 * alone ('never'). Scraped pages become chips that can be opened and removed; they are sent with the message and
 * the model reads them. A page that cannot be scraped (a private address, an unsupported type, ...) says why in a
 * notice and is not offered again for this message. Up to 25 unique URLs a message.
 *
 * A chunk of its own: ./ScrapeBar.tsx shows it once the message has a URL to offer, a page or a scrape in flight.
 */
import { useEffect } from 'react';
import { useSnapshot } from 'valtio';
import type { ScrapeOutcome } from '../../../protocol/engine';
import { MAX_SCRAPE_URLS, SCRAPE_PRICE_MICRO_PER_PAGE, TOO_MANY_SCRAPE_URLS } from '../../../protocol/web-limits';
import { engine, useQuery } from '../../engine';
import { showLocalNotice } from '../../state';
import { newUrls, web } from '../../web-state';
import { hostOf, ScrapedChips } from './ScrapedChips';

export const SCRAPE_FAILED_TITLE = 'Could not scrape the page';

function tooMany(): void {
  showLocalNotice({ title: TOO_MANY_SCRAPE_URLS, text: '', tone: 'orange', durationMs: 5000 });
}

/**
 * Scrapes URLs for the message being written. The engine holds the cap (25 unique URLs a message, counting this
 * draft's pages and its scrapes in flight); the view asks only for what fits by its own count, and says when
 * URLs were left out.
 */
export async function scrapeNow(urls: string[]): Promise<void> {
  const room = MAX_SCRAPE_URLS - web.pages.length - web.scraping.length;
  if (room <= 0) return tooMany();
  const batch = urls.slice(0, room);
  const draftKey = web.draftKey;
  web.scraping = [...web.scraping, ...batch];
  let result: ScrapeOutcome;
  try {
    result = await engine<ScrapeOutcome>((api) => api.scrapeUrls(batch, { key: draftKey, attached: web.pages.map((p) => p.url) }));
  } finally {
    web.scraping = web.scraping.filter((u) => !batch.includes(u));
  }
  if (web.draftKey !== draftKey) return; // the message was sent meanwhile: these pages are not for the next one
  if (!result.ok) {
    web.declined = [...web.declined, ...batch];
    if (result.error === TOO_MANY_SCRAPE_URLS) tooMany();
    else if (!result.notified) showLocalNotice({ title: SCRAPE_FAILED_TITLE, text: result.error, tone: 'red', durationMs: 8000 });
    return;
  }
  if (batch.length < urls.length || result.skipped) {
    web.declined = [...web.declined, ...urls.slice(batch.length), ...(result.skipped ?? [])];
    tooMany();
  }
  const have = new Set(web.pages.map((p) => p.url));
  web.pages = [...web.pages, ...result.pages.filter((p) => !have.has(p.url))];
  if (result.failures.length > 0) web.declined = [...web.declined, ...result.failures.map((f) => f.url)];
  for (const f of result.failures) {
    showLocalNotice({ title: SCRAPE_FAILED_TITLE, text: `${f.url}: ${f.message}`, tone: 'red', durationMs: 8000 });
  }
}

export default function ScrapeBarBody({ text }: { text: string }) {
  const w = useSnapshot(web);
  const preferences = useQuery({ kind: 'preferences' });
  const mode = preferences?.urlScrapingPreference ?? 'ask';
  // Recomputed from the snapshot so the offer updates when pages, declines or scrapes change.
  void w.pages.length;
  void w.declined.length;
  void w.scraping.length;
  const offered = mode === 'never' ? [] : newUrls(text);

  useEffect(() => {
    if (mode !== 'always' || offered.length === 0) return;
    const t = setTimeout(() => void scrapeNow(offered), 600);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the URLs' identity is their text
  }, [mode, offered.join('\n')]);

  const price = (SCRAPE_PRICE_MICRO_PER_PAGE / 1e6).toString();
  return (
    <>
      <ScrapedChips label="Scraped pages" pages={w.pages} onRemove={(url) => (web.pages = web.pages.filter((p) => p.url !== url))} />
      {w.scraping.length > 0 && (
        <p className="scrape-status" role="status">
          Scraping {w.scraping.length === 1 ? hostOf(w.scraping[0] ?? '') : `${w.scraping.length} pages`}…
        </p>
      )}
      {mode === 'ask' && offered.length > 0 && (
        <div className="scrape-offer" role="group" aria-label="Scrape links">
          <span>
            {offered.length === 1 ? `Read ${hostOf(offered[0] ?? '')} for context?` : `Read these ${offered.length} links for context?`}{' '}
            <span className="muted">(${price} a page)</span>
          </span>
          <button type="button" className="primary" onClick={() => void scrapeNow(offered)}>
            Scrape
          </button>
          <button type="button" onClick={() => (web.declined = [...web.declined, ...offered])}>
            Not now
          </button>
        </div>
      )}
    </>
  );
}
