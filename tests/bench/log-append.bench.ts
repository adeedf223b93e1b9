/**
 * The app's append path vs raw Dexie, in real Chromium (IndexedDB on disk in a temporary profile).
 *
 * The page (tests/bench/log-append/main.ts, bundled with vite's build API into .bench-tmp/) writes N message.added
 * events with appendEvents (event rows + projection writes in one transaction) and, in a fresh database of the same
 * schema, bulkPuts the same message rows with raw Dexie, with the same batch sizes. Rounds alternate which goes
 * first. Figure: median ms per 1000 messages; ratio app / raw; target <= 1.15.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import type { AppendRunConfig, AppendRunResult } from './log-append/page-api';
import { needChromium, size } from './smoke';
import type { Bench, BenchResult } from './types';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const pageRoot = join(here, 'log-append');
const outDir = join(repo, '.bench-tmp', 'log-append');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(6, 1));
const SCENARIOS: { name: string; messages: number; batchSize: number; note: string }[] = [
  { name: 'send (2 per append)', messages: size(1000, 20), batchSize: 2, note: 'a chat send: user message + reply message per transaction' },
  { name: 'bulk (50 per append)', messages: size(2000, 100), batchSize: 50, note: 'an import / duplicate: 50 messages per transaction' },
];

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css', '.map': 'application/json' };

async function bundle(): Promise<void> {
  await build({
    root: pageRoot,
    configFile: false,
    logLevel: 'warn',
    base: './',
    build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false },
  });
}

async function serve(): Promise<{ server: Server; url: string }> {
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
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const bench: Bench = async () => {
  const executablePath = needChromium();
  await bundle();
  const { server, url } = await serve();
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const results: BenchResult[] = [];
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(url);
    await page.waitForFunction(() => window.parleyBench !== undefined);
    const runOnce = (config: AppendRunConfig) =>
      page.evaluate((c) => (window.parleyBench as NonNullable<typeof window.parleyBench>).run(c), config) as Promise<AppendRunResult>;

    if (process.env.BENCH_PROBE) {
      // Diagnostics: BENCH_PROBE=<batch size> prints the cost of each component of the append, no results.
      const probes = ['raw', 'app', 'dexie-app', 'native-raw', 'native-events+messages', 'native-floor'] as const;
      const times = new Map<string, number[]>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const p of round % 2 ? [...probes].reverse() : probes) {
          const cfg: AppendRunConfig = {
            mode: p === 'app' ? 'app' : 'raw', messages: 1000, batchSize: Number(process.env.BENCH_PROBE), label: `probe-${round}-${p}`, seed: 5,
            ...(p === 'app' || p === 'raw' ? {} : { probe: p }),
          };
          const r = await runOnce(cfg);
          times.set(p, [...(times.get(p) ?? []), (r.ms / r.messages) * 1000]);
        }
      }
      for (const p of probes) console.log(`${p.padEnd(24)} ${median(times.get(p) ?? []).toFixed(0).padStart(6)} ms/1000  (${(times.get(p) ?? []).map((x) => x.toFixed(0)).join('/')})`);
      return [];
    }
    for (const [si, sc] of SCENARIOS.entries()) {
      const modes = ['app', 'raw-log', 'raw'] as const;
      const times: Record<(typeof modes)[number], number[]> = { app: [], 'raw-log': [], raw: [] };
      // Warm-up (JIT, IndexedDB backing store), not counted.
      for (const mode of modes) await runOnce({ mode, messages: Math.min(sc.messages, 200), batchSize: sc.batchSize, label: `warm-${si}-${mode}`, seed: 1 });
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate the order so that no mode always runs first or last.
        const order = modes.map((_, i) => modes[(i + round) % modes.length] as (typeof modes)[number]);
        for (const mode of order) {
          const r = await runOnce({ mode, messages: sc.messages, batchSize: sc.batchSize, label: `${si}-${round}-${mode}`, seed: 100 + round });
          if (r.stored !== sc.messages) throw new Error(`${mode} stored ${r.stored} of ${sc.messages} messages`);
          times[mode].push((r.ms / r.messages) * 1000);
        }
      }
      const value = median(times.app);
      const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join('/');
      const sameRows = median(times['raw-log']);
      results.push({
        name: `log append: appendEvents vs raw Dexie bulkPut of the same rows, ${sc.name}`,
        unit: 'ms per 1000 messages',
        value,
        baseline: sameRows,
        ratio: value / sameRows,
        target: 'ratio <= 1.15',
        pass: value / sameRows <= 1.15,
        notes: `${sc.note}; baseline bulkPuts the same event, message and conversation rows in one Dexie transaction per batch; ${sc.messages} messages x ${ROUNDS} rounds rotating; app ${fmt(times.app)} raw ${fmt(times['raw-log'])}`,
      });
      const messagesOnly = median(times.raw);
      results.push({
        name: `log append: appendEvents vs bulkPut of the message rows only, ${sc.name}`,
        unit: 'ms per 1000 messages',
        value,
        baseline: messagesOnly,
        ratio: value / messagesOnly,
        target: 'informational: the cost of keeping a log at all',
        pass: true,
        notes: `baseline writes no event rows; raw ${fmt(times.raw)}`,
      });
    }
  } finally {
    await browser.close();
    await new Promise<void>((ok) => server.close(() => ok()));
    await rm(outDir, { recursive: true, force: true });
  }
  return results;
};

export default bench;
