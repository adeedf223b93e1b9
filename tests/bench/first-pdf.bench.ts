/**
 * The first PDF after a gateway start (issue 17). A parse thread loads pdf.js natively and says it reads PDFs
 * before it loads its other readers (src/server/parse/worker.ts), and the gateway starts its threads when it starts
 * (ParsePool.warmUp). Measured in fresh pools, each with threads of its own (a thread loads its modules afresh, as
 * after a restart), on a 36-page PDF:
 *  - a PDF sent at the very moment of the start, from the start to its text (the worst case). Target: <= 1.5 s;
 *    against a warm read (the pool's next PDF) in the same run;
 *  - the first PDF once the pool has started (an upload that comes a few seconds after the start), against a warm read;
 *  - pages per second from the start and warm, against pdftotext on the same file in the same run (skipped, with a
 *    note, when poppler-utils is not installed).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadParseConfig } from '../../src/server/parse/config';
import { ParsePool } from '../../src/server/parse/pool';
import { makePdf } from '../unit/attachments/fixtures';
import { median } from './conversation-view/harness';
import { size } from './smoke';
import type { Bench, BenchResult } from './types';

const run = promisify(execFile);
const PAGES = size(36, 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(3, 1));
const line = (n: number): string => `Page ${n}: the quarterly figures show steady growth across every region, with costs held flat and margins up two points.`;

async function until(test: () => boolean): Promise<void> {
  for (let i = 0; i < 2400 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!test()) throw new Error('the pool did not warm within 60 s');
}

async function timeOne(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function pdftotextMs(pdf: Uint8Array): Promise<number | null> {
  try {
    await run('pdftotext', ['-v']);
  } catch {
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'parley-first-pdf-'));
  try {
    const file = join(dir, 'bench.pdf');
    writeFileSync(file, pdf);
    const xs: number[] = [];
    for (let i = 0; i < Math.max(3, ROUNDS); i++) xs.push(await timeOne(() => run('pdftotext', [file, '-'])));
    return median(xs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Bench = async () => {
  const pdf = makePdf(PAGES, line);
  const read = (pool: ParsePool) => pool.extractDocument('bench', pdf.slice(), 'pdf');
  const config = { ...loadParseConfig({}), warmAtStart: true };
  const atStart: number[] = [];
  const firstLater: number[] = [];
  const warm: number[] = [];
  const startedMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Worst case: the PDF arrives at the start itself.
    let pool = new ParsePool(config);
    atStart.push(await timeOne(() => (pool.warmUp(), read(pool))));
    warm.push(await timeOne(() => read(pool)));
    await pool.close();
    // The gateway starts; an upload comes once its threads have started.
    pool = new ParsePool(config);
    const t0 = performance.now();
    pool.warmUp();
    await until(() => pool.warmed >= 1);
    startedMs.push(performance.now() - t0);
    firstLater.push(await timeOne(() => read(pool)));
    await pool.close();
  }
  const start = median(atStart);
  const later = median(firstLater);
  const warmMs = median(warm);
  const rate = (ms: number): number => PAGES / (ms / 1000);
  const results: BenchResult[] = [
    { name: `${PAGES}-page PDF sent at the very start of the gateway, from the start to its text, vs a warm read`, unit: 'ms', value: start, baseline: warmMs, ratio: start / warmMs, target: '<= 1500 ms', pass: start <= 1500 },
    { name: `first ${PAGES}-page PDF once a thread reads PDFs, vs a warm read`, unit: 'ms', value: later, baseline: warmMs, ratio: later / warmMs, target: 'for comparison', pass: true, notes: `a thread read PDFs ${median(startedMs).toFixed(0)} ms after the start` },
  ];
  const poppler = await pdftotextMs(pdf);
  if (poppler === null) {
    results.push({ name: `warm ${PAGES}-page PDF read (parse pool, pdf.js)`, unit: 'ms', value: warmMs, baseline: null, ratio: null, target: 'for comparison', pass: true, notes: 'pdftotext not installed (apt-get install poppler-utils): its baseline is skipped' });
    return results;
  }
  const pages = `${rate(start).toFixed(0)} pages/s from the start, ${rate(warmMs).toFixed(0)} pages/s warm, ${rate(poppler).toFixed(0)} pages/s pdftotext`;
  results.push(
    { name: `${PAGES}-page PDF from the start (parse pool) vs pdftotext on the same file`, unit: 'ms', value: start, baseline: poppler, ratio: start / poppler, target: 'for comparison', pass: true, notes: pages },
    { name: `warm ${PAGES}-page PDF read (parse pool, pdf.js) vs pdftotext on the same file`, unit: 'ms', value: warmMs, baseline: poppler, ratio: warmMs / poppler, target: 'for comparison', pass: true, notes: pages },
  );
  return results;
};

export default bench;
