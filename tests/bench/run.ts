/**
 * npm run bench [-- NAME...]: runs every tests/bench/*.bench.ts (or those named), prints each figure with its
 * baseline from the same run, and a Markdown table to paste into docs/benchmarks.md.
 *
 * npm run bench -- --smoke [NAME...]: every benchmark at a tiny size (tests/bench/smoke.ts), to prove each still runs;
 * targets are not judged. A benchmark that throws, or whose figure is NaN, fails the run (exit 1) in either mode; one
 * whose program is missing (Chromium) is reported as skipped.
 *
 * Run through tsx with scripts/vite-glob-register.mjs (the package.json script does): the app's code uses Vite's
 * `import.meta.glob`, which that hook gives Node.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Bench, BenchResult } from './types';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
// Before any benchmark module loads: they read their sizes at import time, and child processes inherit it.
if (smoke) process.env.PARLEY_BENCH_SMOKE = '1';
const wanted = args.filter((a) => a !== '--smoke');
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}`);
  process.exit(1);
}
const { BenchSkipped } = await import('./smoke');

const all: BenchResult[] = [];
const failed: string[] = [];
const skipped: string[] = [];
const started = performance.now();
for (const file of files) {
  console.log(`\n# ${file}`);
  const t0 = performance.now();
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
    const results = await mod.default();
    if (results.length === 0) throw new Error('no figure');
    for (const r of results) {
      const base = r.baseline === null ? '' : ` baseline ${r.baseline.toFixed(3)} ${r.unit}, ratio ${r.ratio?.toFixed(3)}`;
      const verdict = Number.isNaN(r.value) ? 'FAIL' : smoke ? 'RAN' : r.pass ? 'PASS' : 'MISS';
      console.log(`${verdict} ${r.name}: ${r.value.toFixed(3)} ${r.unit}${base} (target ${r.target})${r.notes ? ` - ${r.notes}` : ''}`);
      if (Number.isNaN(r.value)) failed.push(`${file}: ${r.name}: no figure${r.notes ? ` (${r.notes})` : ''}`);
      all.push(r);
    }
  } catch (error) {
    if (error instanceof BenchSkipped) {
      console.log(`SKIP ${file}: ${error.message}`);
      skipped.push(`${file}: ${error.message}`);
    } else {
      console.log(`FAIL ${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      failed.push(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`(${file}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

if (!smoke) {
  console.log('\n| benchmark | figure | baseline | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |');
  for (const r of all) {
    const fmt = (n: number | null) => (n === null ? '-' : `${Number(n.toPrecision(4))} ${r.unit}`);
    console.log(`| ${r.name} | ${fmt(r.value)} | ${fmt(r.baseline)} | ${r.ratio === null ? '-' : r.ratio.toFixed(3)} | ${r.target} | ${r.pass ? 'yes' : 'no'} |`);
  }
}
const total = ((performance.now() - started) / 1000).toFixed(1);
const failedFiles = new Set(failed.map((f) => f.slice(0, f.indexOf(':')))).size;
console.log(`\nbench${smoke ? ' --smoke' : ''}: ${files.length - failedFiles - skipped.length} ran, ${skipped.length} skipped, ${failedFiles} failed in ${total} s`);
for (const s of skipped) console.log(`  skipped ${s}`);
for (const f of failed) console.log(`  failed ${f}`);
// Benchmarks leave servers and browsers closed but not always every handle: exit rather than wait on one.
process.exit(failed.length > 0 ? 1 : 0);
