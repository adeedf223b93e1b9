/**
 * Linearity checks without wall-clock limits (a loaded machine makes any "under N ms" flaky): the same work is run
 * on an input of size n and of size factor × n in the same test, interleaved, and the cost ratio is compared with
 * the factor. A linear scan costs about factor times more; a quadratic one factor² times more, whatever the
 * machine's load. The cost is this process's CPU time (process.cpuUsage: time spent waiting for a core is not
 * counted), the least of several rounds, each round long enough (MIN_ROUND_US) to be well above the clock's grain.
 */

export interface Scaling {
  /** CPU microseconds per run at n and at factor × n (the least of the rounds). */
  small: number;
  large: number;
  /** large / small: about `factor` when linear, about factor² when quadratic. */
  ratio: number;
}

const MIN_ROUND_US = 5_000;

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** CPU microseconds per run of `run(input)`, over `times` runs. */
function measure<T>(run: (input: T) => unknown, input: T, times: number): number {
  const t0 = cpuMicros();
  for (let i = 0; i < times; i++) run(input);
  return (cpuMicros() - t0) / times;
}

/**
 * Measures `run` on `make(n)` and `make(factor * n)` (inputs built before the clock starts), `rounds` times each,
 * alternating, after a warm-up; returns the least cost per run at each size and their ratio.
 */
export function scaling<T>(make: (n: number) => T, run: (input: T) => unknown, n: number, factor = 8, rounds = 5): Scaling {
  const small = make(n);
  const large = make(n * factor);
  run(small);
  run(large);
  // Enough runs of the small input that a round takes MIN_ROUND_US; the large input gets factor times fewer.
  const once = Math.max(1, measure(run, small, 1));
  const smallTimes = Math.max(1, Math.ceil(MIN_ROUND_US / once));
  const largeTimes = Math.max(1, Math.ceil(smallTimes / factor));
  let bestSmall = Number.POSITIVE_INFINITY;
  let bestLarge = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    bestSmall = Math.min(bestSmall, measure(run, small, smallTimes));
    bestLarge = Math.min(bestLarge, measure(run, large, largeTimes));
  }
  return { small: bestSmall, large: bestLarge, ratio: bestLarge / Math.max(1, bestSmall) };
}
