/**
 * The gateway's upstream SSE parser (src/server/providers/sse.ts) on one 5 MB data line (a streamed image, say)
 * fed in 16 KB chunks, against the same bytes fed in one chunk, in the same run. A parser that rescans its buffer
 * on every chunk is quadratic here (the hand-written one took 4.9 s against 26 ms). One chunk is nearly free (V8
 * slices it without copying), so the ratio is shown but the target is absolute: under 50 ms. A second figure tests
 * linearity itself: the 5 MB line against ten times a 512 KB line, both in 16 KB chunks (target ratio < 2).
 * Median of rounds alternating the variants.
 */
import { SseParser } from '../../src/server/providers/sse';
import { size } from './smoke';
import type { Bench, BenchResult } from './types';

const ROUNDS = size(15, 2);
const WARMUP = size(3, 1);
const CHUNK = 16 * 1024;
const TARGET_MS = 50;
const TARGET_LINEAR = 2;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

let sink = 0;

function run(chunks: readonly string[]): number {
  const t0 = performance.now();
  const p = new SseParser();
  let n = 0;
  for (const c of chunks) for (const e of p.push(c)) n += e.data.length;
  for (const e of p.flush()) n += e.data.length;
  const t = performance.now() - t0;
  sink += n;
  return t;
}

function streamOf(bytes: number): string {
  return `data: {"a":1}\n\ndata: ${'x'.repeat(bytes)}\n\ndata: [DONE]\n\n`;
}

function chunksOf(stream: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < stream.length; i += CHUNK) pieces.push(stream.slice(i, i + CHUNK));
  return pieces;
}

const bench: Bench = async () => {
  const stream = streamOf(size(5 * 1024 * 1024, 256 * 1024));
  const whole = [stream];
  const pieces = chunksOf(stream);
  const small = chunksOf(streamOf(size(512 * 1024, 32 * 1024)));

  for (let k = 0; k < WARMUP; k++) {
    run(pieces);
    run(whole);
  }
  const chunked: number[] = [];
  const oneChunk: number[] = [];
  const tenSmall: number[] = [];
  const runTen = (): number => {
    let t = 0;
    for (let i = 0; i < 10; i++) t += run(small);
    return t;
  };
  for (let k = 0; k < ROUNDS; k++) {
    if (k % 2 === 0) {
      chunked.push(run(pieces));
      oneChunk.push(run(whole));
      tenSmall.push(runTen());
    } else {
      tenSmall.push(runTen());
      oneChunk.push(run(whole));
      chunked.push(run(pieces));
    }
  }
  if (sink === 0) throw new Error('sse-parse bench: nothing parsed');
  const value = median(chunked);
  const baseline = median(oneChunk);
  const ten = median(tenSmall);
  const results: BenchResult[] = [
    {
      name: 'sse-parse: 5 MB data line in 16 KB chunks vs one chunk',
      unit: 'ms',
      value,
      baseline,
      ratio: value / baseline,
      target: `< ${TARGET_MS} ms (hand-written parser: 4,900 ms)`,
      pass: value < TARGET_MS,
      notes: `${pieces.length} chunks`,
    },
    {
      name: 'sse-parse: 5 MB line vs 10 x 512 KB lines, 16 KB chunks (linearity)',
      unit: 'ms',
      value,
      baseline: ten,
      ratio: value / ten,
      target: `ratio < ${TARGET_LINEAR}`,
      pass: value / ten < TARGET_LINEAR,
    },
  ];
  return results;
};

export default bench;
