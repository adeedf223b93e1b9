/**
 * The built-in offline image engine: NOT a model. It paints a deterministic abstract picture from the prompt and
 * the seed (src/server/media/art.ts) and returns it as PNG. Same prompt, seed and size: same bytes. With input
 * images (image-to-image) it tints and blends the first input's average colour into the scene. The grid variant
 * answers one 2x2 grid of four variations, Midjourney-style, which the client splits into four images.
 */
import { paint, sceneOf } from '../art';
import { encodePng } from '../png';
import type { ImageJob, ImageProvider, ImageResult } from './types';

export const OFFLINE_IMAGE_MODEL_ID = 'parley-offline-image';
export const OFFLINE_GRID_MODEL_ID = 'parley-offline-grid';

export class OfflineImageProvider implements ImageProvider {
  readonly id = 'offline';

  async generate(job: ImageJob, signal: AbortSignal): Promise<ImageResult> {
    const seed = job.seed ?? 0;
    if (job.model === OFFLINE_GRID_MODEL_ID) {
      const w = job.width;
      const h = job.height;
      const grid = new Uint8Array(w * 2 * h * 2 * 3);
      for (let q = 0; q < 4; q++) {
        if (signal.aborted) throw signal.reason;
        const tile = paint(sceneOf(job.prompt, seed + q), w, h);
        const ox = (q % 2) * w;
        const oy = Math.floor(q / 2) * h;
        for (let y = 0; y < h; y++) grid.set(tile.subarray(y * w * 3, (y + 1) * w * 3), ((oy + y) * w * 2 + ox) * 3);
      }
      return { ok: true, images: [{ bytes: encodePng(grid, w * 2, h * 2), mime: 'image/png' }], quadrants: true };
    }
    const images = [];
    for (let i = 0; i < job.n; i++) {
      if (signal.aborted) throw signal.reason;
      const scene = sceneOf(job.prompt, seed + i);
      const tint = job.inputs[0] ? averageColour(job.inputs[0].bytes) : null;
      if (tint) scene.top = tint;
      images.push({ bytes: encodePng(paint(scene, job.width, job.height), job.width, job.height), mime: 'image/png' as const });
    }
    return { ok: true, images };
  }
}

/** A colour from an input image's bytes (any format: it is a fingerprint, not a decode). */
function averageColour(bytes: Uint8Array): [number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  const step = Math.max(3, Math.floor(bytes.length / 3000) * 3);
  let n = 0;
  for (let i = 0; i + 2 < bytes.length; i += step, n++) {
    r += bytes[i] as number;
    g += bytes[i + 1] as number;
    b += bytes[i + 2] as number;
  }
  return n === 0 ? [128, 128, 128] : [r / n, g / n, b / n];
}
