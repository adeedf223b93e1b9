/**
 * Node side of the conversation-view benches: bundle the page (vite build API, the app's React plugin) into
 * .bench-tmp/, serve it on loopback, and open it in Debian's Chromium with a CDP session for main-thread CPU.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../../..');
const outDir = join(repo, '.bench-tmp', 'conversation-view');
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf' };

export interface ViewPage {
  page: Page;
  cdp: CDPSession;
  /** Main-thread task time (s) so far, from Chromium's Performance domain (wall time of tasks: grows with load). */
  taskSeconds(): Promise<number>;
  /** Main-thread CPU time (s) so far (Performance domain ThreadTime: what the thread ran, not what it waited). */
  threadSeconds(): Promise<number>;
  close(): Promise<void>;
}

let built: Promise<void> | null = null;
function bundle(): Promise<void> {
  built ??= build({
    root: here,
    configFile: false,
    logLevel: 'warn',
    base: './',
    plugins: [react()],
    // BENCH_MINIFY=0 keeps function names for a readable CPU profile.
    build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false, minify: process.env.BENCH_MINIFY !== '0' },
  }).then(() => undefined);
  return built;
}

function serve(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(outDir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(outDir + sep)) {
      res.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end('not found'),
    );
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })));
}

export async function openViewPage(viewport = { width: 1366, height: 768 }): Promise<ViewPage> {
  await bundle();
  const { server, url } = await serve();
  const browser: Browser = await chromium.launch({
    executablePath: process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    // --expose-gc: the open bench collects the garbage of building its synthetic data before it starts the clock.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--js-flags=--expose-gc'],
  });
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.parleyView !== undefined);
  await page.evaluate(() => window.parleyView?.warm());
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return {
    page,
    cdp,
    async taskSeconds() {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((m) => m.name === 'TaskDuration')?.value ?? Number.NaN;
    },
    async threadSeconds() {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((m) => m.name === 'ThreadTime')?.value ?? Number.NaN;
    },
    async close() {
      await browser.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
