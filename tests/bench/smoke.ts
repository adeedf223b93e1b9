/**
 * `npm run bench -- --smoke` (run by `npm test`): every benchmark at a tiny size, a few seconds each, to prove that
 * each one still runs end to end. Its figures mean nothing and its targets are not judged; a benchmark that throws,
 * or yields no figure, fails the run. The runner sets PARLEY_BENCH_SMOKE=1, so child processes see it too.
 */
import { existsSync } from 'node:fs';

export const SMOKE = process.env.PARLEY_BENCH_SMOKE === '1';

/** `full` in a real run, `smoke` in a smoke run. */
export const size = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

/** Thrown by a benchmark that cannot run here (a program it needs is missing): reported as skipped, with why. */
export class BenchSkipped extends Error {}

/** Chromium for the browser benchmarks (PARLEY_CHROMIUM or Debian's); skips the benchmark when it is absent. */
export function needChromium(): string {
  const path = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new BenchSkipped(`no Chromium at ${path} (apt-get install chromium, or set PARLEY_CHROMIUM)`);
  return path;
}
