import { describe, expect, it } from 'vitest';
import { compressionSchedule, hasRealTransparency, outputFormat, runCompression } from '../../../src/worker/rooms/library/attachments/compression-schedule';
import { COMPRESSION_ERROR, IMAGE_SIZE_LIMIT } from '../../../src/protocol/attachments';

describe('compression schedule (spec 001 section 4)', () => {
  it('quality 0.8 down by 0.1 to 0.1; scale shrinks by 0.1 once quality is at or below 0.2; 12 attempts', () => {
    expect(compressionSchedule().map((s) => [s.quality, s.scale])).toEqual([
      [0.8, 1], [0.7, 1], [0.6, 1], [0.5, 1], [0.4, 1], [0.3, 1],
      [0.2, 0.9], [0.1, 0.8], [0.1, 0.7], [0.1, 0.6], [0.1, 0.5], [0.1, 0.4],
    ]);
  });

  it('scale never goes below 0.3 and quality never below 0.1, however long it runs', () => {
    const long = compressionSchedule(30);
    expect(long.at(-1)).toEqual({ iteration: 30, quality: 0.1, scale: 0.3 });
    expect(Math.min(...long.map((s) => s.scale))).toBe(0.3);
    expect(Math.min(...long.map((s) => s.quality))).toBe(0.1);
  });

  it('the first result within 3,670,016 bytes wins', async () => {
    // A synthetic image whose encoded size is proportional to quality x scale^2.
    const sizes: number[] = [];
    const result = await runCompression('image/jpeg', async (step) => {
      const size = Math.round(9_000_000 * step.quality * step.scale * step.scale);
      sizes.push(size);
      return { output: step, size };
    });
    expect(result.step).toEqual({ iteration: 5, quality: 0.4, scale: 1 });
    expect(result.size).toBeLessThanOrEqual(IMAGE_SIZE_LIMIT);
    expect(sizes).toHaveLength(5);
    expect(sizes.slice(0, 4).every((s) => s > IMAGE_SIZE_LIMIT)).toBe(true);
  });

  it('a result of exactly the limit is accepted; one byte over is not', async () => {
    const exact = await runCompression('image/jpeg', async () => ({ output: 1, size: IMAGE_SIZE_LIMIT }));
    expect(exact.attempts).toHaveLength(1);
    await expect(runCompression('image/jpeg', async () => ({ output: 1, size: IMAGE_SIZE_LIMIT + 1 }))).rejects.toThrow(COMPRESSION_ERROR.iterations);
  });

  it('stops after 12 iterations with the spec internal error', async () => {
    let calls = 0;
    await expect(
      runCompression('image/jpeg', async () => {
        calls++;
        return { output: null, size: 50_000_000 };
      }),
    ).rejects.toThrow('Failed to compress image within the specified iterations');
    expect(calls).toBe(12);
  });

  it('a PNG ignores quality: it is encoded again only when the scale changes', async () => {
    const scales: number[] = [];
    await expect(
      runCompression('image/png', async (step) => {
        scales.push(step.scale);
        return { output: null, size: 50_000_000 };
      }),
    ).rejects.toThrow(COMPRESSION_ERROR.iterations);
    expect(scales).toEqual([1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runCompression('image/jpeg', async () => ({ output: 1, size: 1 }), { signal: controller.signal })).rejects.toThrow();
  });
});

describe('transparency rule', () => {
  it('JPEG unless a PNG has real transparency', () => {
    expect(outputFormat(true, true)).toBe('image/png');
    expect(outputFormat(true, false)).toBe('image/jpeg');
    expect(outputFormat(false, true)).toBe('image/jpeg');
  });

  it('is checked on the pixels: one pixel with alpha below 255 is transparency', () => {
    const opaque = new Uint8ClampedArray(4 * 1000).fill(255);
    expect(hasRealTransparency(opaque)).toBe(false);
    const one = opaque.slice();
    one[4 * 637 + 3] = 254;
    expect(hasRealTransparency(one)).toBe(true);
    // A colour channel at 0 is not transparency.
    const dark = opaque.slice();
    dark[0] = 0;
    expect(hasRealTransparency(dark)).toBe(false);
  });
});
