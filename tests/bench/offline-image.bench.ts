/**
 * The built-in offline image engine (src/server/media/providers/image-offline.ts): one 512x512 PNG from a prompt, painted
 * and encoded, against a baseline measured in the same run: zlib's deflate of the same number of raw RGB bytes (the
 * part of a PNG no painter can avoid). Target: the whole image costs at most 4 times the deflate, and under 150 ms
 * (an image should appear about as fast as a reply's first words). Median of alternating rounds.
 */
import { deflateSync } from 'node:zlib';
import { OfflineImageProvider } from '../../src/server/media/providers/image-offline';
import { paint, sceneOf } from '../../src/server/media/art';
import { size } from './smoke';
import type { Bench } from './types';

const ROUNDS = size(15, 2);
const SIZE = size(512, 64);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

const bench: Bench = async () => {
  const provider = new OfflineImageProvider();
  const signal = new AbortController().signal;
  // Raw bytes of a real scene, so deflate sees what it sees in a PNG.
  const raw = paint(sceneOf('a lighthouse on a cliff at sunset', 1), SIZE, SIZE);
  let bytes = 0;
  const image = async (seed: number) => {
    const t0 = performance.now();
    const r = await provider.generate({ model: 'parley-offline-image', prompt: 'a lighthouse on a cliff at sunset', n: 1, width: SIZE, height: SIZE, seed, inputs: [] }, signal);
    const t = performance.now() - t0;
    if (r.ok) bytes += r.images[0]?.bytes.length ?? 0;
    return t;
  };
  const deflate = () => {
    const t0 = performance.now();
    bytes += deflateSync(raw, { level: 6 }).length;
    return performance.now() - t0;
  };
  for (let i = 0; i < 3; i++) {
    await image(i);
    deflate();
  }
  const made: number[] = [];
  const base: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    if (k % 2 === 0) {
      made.push(await image(k));
      base.push(deflate());
    } else {
      base.push(deflate());
      made.push(await image(k));
    }
  }
  if (bytes === 0) throw new Error('offline-image bench: nothing made');
  const value = median(made);
  const baseline = median(base);
  const ratio = value / baseline;
  return [
    {
      name: 'offline image 512x512 (paint + PNG) vs deflate of its raw bytes',
      unit: 'ms',
      value,
      baseline,
      ratio,
      target: 'ratio <= 4 and < 150 ms',
      pass: ratio <= 4 && value < 150,
      notes: `median of ${ROUNDS}`,
    },
  ];
};

export default bench;
