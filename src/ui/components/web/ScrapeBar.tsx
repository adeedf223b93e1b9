/**
 * The composer's URL scraping bar (./ScrapeBarBody.tsx): its chunk loads once the message has a URL to offer (or a
 * scraped page, or a scrape in flight); until then the bar is an empty box, hidden (styles/web.css).
 */
import { lazy, Suspense } from 'react';
import { useSnapshot } from 'valtio';
import { useQuery } from '../../engine';
import { newUrls, web } from '../../web-state';

const ScrapeBarBody = lazy(() => import('./ScrapeBarBody'));

export function ScrapeBar({ text }: { text: string }) {
  const w = useSnapshot(web);
  const preferences = useQuery({ kind: 'preferences' });
  const mode = preferences?.urlScrapingPreference ?? 'ask';
  // Read from the snapshot so the bar follows pages, declines and scrapes.
  void w.declined.length;
  const active = w.pages.length > 0 || w.scraping.length > 0 || (mode !== 'never' && newUrls(text).length > 0);
  return (
    <div className="scrape-bar">
      {active && (
        <Suspense fallback={null}>
          <ScrapeBarBody text={text} />
        </Suspense>
      )}
    </div>
  );
}
