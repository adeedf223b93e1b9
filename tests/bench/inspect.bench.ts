/**
 * The log inspector on a 100k-event log (what `replay --at/--diff/--trim` and the app's Inspector stand on):
 *  1. the state after an arbitrary event through Timeline (a snapshot every 2000 events, kept in memory, plus a
 *     short fold), against a fold from zero to the same event in the same run: target within 200 ms;
 *  2. a repro log of one conversation (trimLog + encodeLog): its size against the whole log.
 */
import { encodeLog } from '../../src/events/codec';
import { fold } from '../../src/projections/fold';
import { slugsOf, Timeline, trimLog } from '../../src/inspect';
import { size } from './smoke';
import type { Bench, BenchResult } from './types';
import { generateSampleLog, mulberry32 } from './log-append/sample-log';

const EVENTS = size(100_000, 2_000);
const EVERY = size(2000, 100);
const PROBES = size(15, 3);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const bench: Bench = async () => {
  const events = generateSampleLog({ events: EVENTS, seed: 7, secondsTimestamps: 0.05 });
  const rand = mulberry32(11);
  const positions = Array.from({ length: PROBES }, () => 1 + Math.floor(rand() * events.length));
  let sink = 0;

  const timeline = new Timeline(events, EVERY);
  const t0 = performance.now();
  sink += timeline.stateAt(events.length).tables.size('messages'); // builds every snapshot once
  const buildMs = performance.now() - t0;

  const atMs: number[] = [];
  const zeroMs: number[] = [];
  for (const n of positions) {
    let t = performance.now();
    sink += timeline.stateAt(n).tables.size('messages');
    atMs.push(performance.now() - t);
    t = performance.now();
    sink += fold(events.slice(0, n)).size('messages');
    zeroMs.push(performance.now() - t);
  }
  const worst = Math.max(...atMs);

  const whole = encodeLog(events, { exportedAt: 1 });
  const counts = new Map<string, number>();
  for (const e of events) for (const s of slugsOf(e)) counts.set(s, (counts.get(s) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const repro = encodeLog(trimLog(events, busiest), { exportedAt: 1 });

  const results: BenchResult[] = [
    {
      name: `inspect: state after an arbitrary event of a ${EVENTS / 1000}k log (snapshot every ${EVERY}) vs a fold from zero`,
      unit: 'ms',
      value: median(atMs),
      baseline: median(zeroMs),
      ratio: median(atMs) / median(zeroMs),
      target: 'worst of the probes <= 200 ms',
      pass: worst <= 200,
      notes: `${PROBES} random positions; worst ${worst.toFixed(1)} ms; fold from zero median ${median(zeroMs).toFixed(1)} ms; snapshots built once in ${buildMs.toFixed(0)} ms (${timeline.snapshotCount})${sink < 0 ? '' : ''}`,
    },
    {
      name: 'inspect: repro log of the busiest conversation (trim) vs the whole log',
      unit: 'bytes',
      value: repro.length,
      baseline: whole.length,
      ratio: repro.length / whole.length,
      target: 'smaller than the whole log',
      pass: repro.length < whole.length,
      notes: `${counts.size} conversations; the repro replays to the same conversation state (tests/unit/inspect/repro.test.ts)`,
    },
  ];
  return results;
};

export default bench;
