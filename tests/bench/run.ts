/**
 * npm run bench [-- NAME...]: runs every tests/bench/*.bench.ts (or those named), prints each figure with its
 * baseline from the same run, and a Markdown table to paste into docs/benchmarks.md.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Bench, BenchResult } from './types';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

const all: BenchResult[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
  console.log(`\n# ${file}`);
  const results = await mod.default();
  for (const r of results) {
    const base = r.baseline === null ? '' : ` baseline ${r.baseline.toFixed(3)} ${r.unit}, ratio ${r.ratio?.toFixed(3)}`;
    console.log(`${r.pass ? 'PASS' : 'MISS'} ${r.name}: ${r.value.toFixed(3)} ${r.unit}${base} (target ${r.target})${r.notes ? ` - ${r.notes}` : ''}`);
    all.push(r);
  }
}

console.log('\n| benchmark | figure | baseline | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |');
for (const r of all) {
  const fmt = (n: number | null) => (n === null ? '-' : `${Number(n.toPrecision(4))} ${r.unit}`);
  console.log(`| ${r.name} | ${fmt(r.value)} | ${fmt(r.baseline)} | ${r.ratio === null ? '-' : r.ratio.toFixed(3)} | ${r.target} | ${r.pass ? 'yes' : 'no'} |`);
}
process.exit(0);
