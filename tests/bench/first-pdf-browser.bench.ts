/**
 * The first PDF attached in the browser (issue 17: within 1.5 s of the first attach). The app reads a PDF in a file
 * worker of its own, started for the file and ended after (src/worker/rooms/library/file-jobs.ts), with pdf.js,
 * which starts its own worker. Measured in Chromium on the bench page (./attachments/main.ts, built by Vite as the
 * app is), a 36-page PDF:
 *  - the first PDF in a fresh browser context (nothing cached: the worker's and pdf.js's code fetched and compiled),
 *    from the file worker's start to the text. Target: <= 1500 ms;
 *  - against a later PDF in the same page (code cached, a new file worker as each attach has), in the same run.
 */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { makePdf } from '../unit/attachments/fixtures';
import { median } from './conversation-view/harness';
import { needChromium, size } from './smoke';
import type { Bench } from './types';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(3, 1));
const PAGES = size(36, 2);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, 'attachments');
const outDir = join(resolve(here, '../..'), '.bench-tmp', 'first-pdf-browser');
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8' };
const line = (n: number): string => `Page ${n}: the quarterly figures show steady growth across every region, with costs held flat and margins up two points.`;

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
  const bytes = Array.from(makePdf(PAGES, line));
  const first: number[] = [];
  const later: number[] = [];
  let chars = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        page.on('pageerror', (e) => console.error('page error:', e.message));
        await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        await page.waitForFunction(() => window.parleyReadPdf !== undefined);
        const a = await page.evaluate((b) => window.parleyReadPdf!(b), bytes);
        const b = await page.evaluate((b) => window.parleyReadPdf!(b), bytes);
        first.push(a.ms);
        later.push(b.ms);
        chars = a.chars;
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
  if (chars === 0) throw new Error('the PDF gave no text');
  const f = median(first);
  const l = median(later);
  return [
    { name: `first ${PAGES}-page PDF attached in a fresh browser context (file worker start to text) vs a later attach`, unit: 'ms', value: f, baseline: l, ratio: f / l, target: '<= 1500 ms', pass: f <= 1500, notes: `${(PAGES / (f / 1000)).toFixed(0)} pages/s first, ${(PAGES / (l / 1000)).toFixed(0)} pages/s later; ${ROUNDS} rounds` },
  ];
};

export default bench;
