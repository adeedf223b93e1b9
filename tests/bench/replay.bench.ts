/**
 * Replay throughput in Node: fold a realistic 100k-event log with the app's projections into the in-memory store.
 *  1. fold only (events already decoded): events/s, absolute target >= 1 000 000 events/s (issue 19).
 *  2. full replay of the NDJSON text (streamed: decode + validate + upcast + fold line by line) vs a bare loop that
 *     only JSON-parses the same lines (and drops the results): how much the app adds on top of parsing. A replay
 *     must keep its read models alive, which the bare loop never pays for (measured: parsing and keeping the
 *     objects alone costs about 1.5x parsing and dropping); the target is at least half the bare parse rate.
 * Each figure is the median of several runs after a warm-up, in CPU time (see time()); the wall times are in the notes.
 */
import { encodeLog, iterateLog } from '../../src/events/codec';
import { fold } from '../../src/projections/fold';
import { size } from './smoke';
import type { Bench, BenchResult } from './types';
import { generateSampleLog } from './log-append/sample-log';

const EVENTS = size(100_000, 1_000);
const RUNS = size(7, 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Wall and CPU milliseconds of one call. CPU time (user + system of the process, GC threads included) is what the
 * rates use: on the shared 2-core machine the wall clock mostly measures the other work's share of the cores. */
function time(fn: () => void): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

const bench: Bench = async () => {
  const events = generateSampleLog({ events: EVENTS, seed: 7, secondsTimestamps: 0.05 });
  const n = events.length;
  const text = encodeLog(events, { exportedAt: 1_700_000_000_000 });
  const lines = text.split('\n').slice(1, -1);

  let sink = 0;
  const foldOnce = () => {
    const store = fold(events);
    sink += store.size('messages');
  };
  const replayOnce = () => {
    // What `npm run replay` does: stream the lines through decode + validate + upcast into the fold.
    sink += fold(iterateLog(text).events).size('messages');
  };
  const parseOnce = () => {
    for (let i = 0; i < lines.length; i++) sink += (JSON.parse(lines[i] as string) as { at: number }).at > 0 ? 1 : 0;
  };

  // warm-up
  for (let i = 0; i < 2; i++) {
    foldOnce();
    replayOnce();
    parseOnce();
  }
  const foldMs: number[] = [];
  const replayMs: number[] = [];
  const parseMs: number[] = [];
  const foldWall: number[] = [];
  const replayWall: number[] = [];
  const parseWall: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const f = time(foldOnce);
    const p = time(parseOnce);
    const r = time(replayOnce);
    foldMs.push(f.cpu);
    parseMs.push(p.cpu);
    replayMs.push(r.cpu);
    foldWall.push(f.wall);
    parseWall.push(p.wall);
    replayWall.push(r.wall);
  }
  const foldRate = n / (median(foldMs) / 1000);
  const replayRate = n / (median(replayMs) / 1000);
  const parseRate = n / (median(parseMs) / 1000);
  const mb = (text.length / 1e6).toFixed(1);
  const results: BenchResult[] = [
    {
      name: 'replay: fold 100k events (projections + memory store)',
      unit: 'events/s',
      value: foldRate,
      baseline: null,
      ratio: null,
      target: '>= 1000000 events/s',
      pass: foldRate >= 1_000_000,
      notes: `${n} events, median CPU time of ${RUNS} runs ${median(foldMs).toFixed(1)} ms (best ${Math.min(...foldMs).toFixed(1)} ms; wall median ${median(foldWall).toFixed(1)} ms)${sink < 0 ? '' : ''}`,
    },
    {
      name: 'replay: NDJSON streamed through decode+validate+upcast+fold vs bare JSON.parse of the same lines',
      unit: 'events/s',
      value: replayRate,
      baseline: parseRate,
      ratio: replayRate / parseRate,
      target: 'ratio >= 0.5',
      pass: replayRate / parseRate >= 0.5,
      notes: `${mb} MB of NDJSON; CPU time medians: full replay ${median(replayMs).toFixed(1)} ms vs parse only ${median(parseMs).toFixed(1)} ms (wall ${median(replayWall).toFixed(1)} vs ${median(parseWall).toFixed(1)} ms)`,
    },
  ];
  return results;
};

export default bench;
