#!/usr/bin/env node
/**
 * Sums a V8 .cpuprofile's self time per function and per file (or package), busiest first:
 *   node scripts/cpuprofile-top.mjs FILE.cpuprofile [--top 30] [--from SECONDS] [--to SECONDS]
 * Self time of a sample is the time to the next sample. (idle) is left out of the percentages of busy time;
 * files under node_modules are grouped by package, node:internal files by their module.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+(\.\d+)?$/.test(a));
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(args[i + 1]);
};
if (!file) {
  console.error('usage: node scripts/cpuprofile-top.mjs FILE.cpuprofile [--top 30] [--from S] [--to S]');
  process.exit(2);
}
const top = opt('top', 30);
const from = opt('from', 0) * 1e6;
const to = opt('to', Infinity) * 1e6;
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));

const where = (url) => {
  if (!url) return '(native)';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = u.slice(nm + 'node_modules/'.length).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (u.startsWith('node:')) return u;
  const src = u.indexOf('/src/');
  if (src !== -1) return u.slice(src + 1);
  const tests = u.indexOf('/tests/');
  return tests !== -1 ? u.slice(tests + 1) : u;
};

const fn = new Map();
const files = new Map();
let total = 0;
let idle = 0;
let t = prof.startTime;
for (let i = 0; i < prof.samples.length; i++) {
  t += prof.timeDeltas[i] ?? 0;
  const dt = prof.timeDeltas[i + 1] ?? 0;
  if (t - prof.startTime < from || t - prof.startTime > to) continue;
  const node = byId.get(prof.samples[i]);
  const cf = node.callFrame;
  if (cf.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  total += dt;
  const w = where(cf.url);
  const key = `${cf.functionName || '(anonymous)'} ${w}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
  fn.set(key, (fn.get(key) ?? 0) + dt);
  files.set(w, (files.get(w) ?? 0) + dt);
}
const ms = (us) => (us / 1000).toFixed(0).padStart(7);
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`${file}: busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`);
console.log(`\ntop ${top} functions by self time (ms, % of busy)`);
for (const [k, v] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(v)} ${pct(v)}  ${k}`);
console.log(`\ntop ${top} files / packages by self time`);
for (const [k, v] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(v)} ${pct(v)}  ${k}`);
