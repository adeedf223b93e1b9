/**
 * Scraping 25 URLs at once (issue 8): POST /api/scrape with 25 pages of a local test server, each answering after
 * its own delay (100 to 340 ms) with about 60 KB of HTML. Figure: wall time of the 25-URL request; baseline: the
 * same request for the slowest page alone, measured in the same run. A ratio near 1 means the pages are fetched
 * concurrently and reading them (Readability on linkedom, in the parse pool's threads) adds little; 25 sequential
 * fetches would be about 6.
 */
import { size } from './smoke';
import type { Bench } from './types';
import { startTestHost, webGateway } from '../unit/web/helpers';

const PAGES = size(25, 3);
const ROUNDS = size(7, 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const bench: Bench = async () => {
  const para = `<p>${'The quick brown fox jumps over the lazy dog while the baker proofs the rye. '.repeat(12)}</p>`;
  const body = `<!doctype html><html><head><title>Page</title></head><body><nav>menu</nav><article><h1>Title</h1>${para.repeat(60)}</article></body></html>`;
  const delays = Array.from({ length: PAGES }, (_, i) => 100 + i * 10);
  const routes = Object.fromEntries(
    delays.map((d, i) => [
      `/p${i}`,
      (_q: unknown, r: import('node:http').ServerResponse) => {
        setTimeout(() => r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body), d);
      },
    ]),
  );
  const host = await startTestHost(routes);
  const gw = await webGateway({ scrapeTest: { allow: [{ address: '127.0.0.1', port: host.port }] } }, { PARLEY_COSTLY_RATE_BURST: '100000' });
  await gw.credit(100_000_000n);
  let n = 0;
  const scrape = async (urls: string[]): Promise<number> => {
    const t = performance.now();
    const res = await gw.post('/api/scrape', { urls, requestId: `bench-scrape-${++n}` });
    const json = (await res.json()) as { pages: unknown[] };
    if (json.pages?.length !== urls.length) throw new Error(`scraped: ${JSON.stringify(json).slice(0, 300)}`);
    return performance.now() - t;
  };
  const all = delays.map((_, i) => `${host.url}/p${i}`);
  const slowest = `${host.url}/p${PAGES - 1}`;
  // Warm up: the DOM parser and Readability run in the parse pool's threads, each compiling them on its own, and a
  // running gateway keeps its threads warm.
  await scrape([slowest]);
  for (let i = 0; i < size(5, 1); i++) await scrape(all);
  const single: number[] = [];
  const many: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    single.push(await scrape([slowest]));
    many.push(await scrape(all));
  }
  await gw.close();
  await host.close();
  const value = median(many);
  const baseline = median(single);
  const ratio = value / baseline;
  return [
    {
      name: 'scrape 25 URLs concurrently (wall time)',
      unit: 'ms',
      value,
      baseline,
      ratio,
      target: 'ratio <= 1.5 (vs the slowest single page)',
      pass: ratio <= 1.5,
      notes: `median of ${ROUNDS}; page delays 100-340 ms, ${Math.round(body.length / 1024)} KB each`,
    },
  ];
};
export default bench;
