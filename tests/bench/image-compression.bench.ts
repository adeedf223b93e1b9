/**
 * Image compression (spec 001 section 4, issue 7) in Chromium: a 12-megapixel JPEG (made on a canvas in the page)
 * compressed by the app's prepareImage in the file worker, against the same code on the main thread.
 * Figures: wall time of each (median of ROUNDS, alternating), ratio worker / main; and the longest main-thread long
 * task (PerformanceObserver 'longtask') while the worker compresses. Targets: no main-thread long task over 50 ms
 * during the worker run; the worker within 1.5x of the main thread's time (it pays a thread start and a copy).
 */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import type { RunResult } from './attachments/main';
import { median } from './conversation-view/harness';
import { needChromium, size } from './smoke';
import type { Bench } from './types';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(3, 1));
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, 'attachments');
const outDir = join(resolve(here, '../..'), '.bench-tmp', 'attachments');
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8' };

const bench: Bench = async () => {
  const executablePath = needChromium();
  await build({ root, configFile: false, logLevel: 'warn', base: './', worker: { format: 'es' }, build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false } });
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(outDir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(outDir + sep)) return void res.writeHead(403).end();
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => window.parleyCompress !== undefined);
    const size = await page.evaluate(() => window.parleyCompress!.prepare());
    const times: Record<'worker' | 'main', number[]> = { worker: [], main: [] };
    let workerLongest = 0;
    let workerLong = 0;
    let mainLongest = 0;
    let last: RunResult | null = null;
    for (let round = 0; round < ROUNDS; round++) {
      for (const where of round % 2 === 0 ? (['worker', 'main'] as const) : (['main', 'worker'] as const)) {
        const r = await page.evaluate((w) => window.parleyCompress!.run(w), where);
        times[where].push(r.ms);
        if (where === 'worker') {
          workerLongest = Math.max(workerLongest, ...r.longTasks, 0);
          workerLong += r.longTasks.filter((t) => t > 50).length;
          last = r;
        } else mainLongest = Math.max(mainLongest, ...r.longTasks, 0);
      }
    }
    const worker = median(times.worker);
    const main = median(times.main);
    const note = `input ${(size / 1048576).toFixed(2)} MB, output ${((last?.finalSize ?? 0) / 1048576).toFixed(2)} MB ${last?.mimeType}; ${ROUNDS} rounds`;
    return [
      { name: '12 MP JPEG compressed in the file worker vs the same code on the main thread', unit: 'ms', value: worker, baseline: main, ratio: worker / main, target: 'ratio <= 1.5', pass: worker / main <= 1.5, notes: note },
      {
        name: 'longest main-thread long task while the worker compresses (vs on the main thread)',
        unit: 'ms',
        value: workerLongest,
        baseline: mainLongest,
        ratio: mainLongest > 0 ? workerLongest / mainLongest : null,
        target: 'no long task over 50 ms',
        pass: workerLong === 0,
        notes: `${workerLong} long tasks over 50 ms in the worker runs`,
      },
    ];
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
};

export default bench;
