/**
 * The built-in offline Upscaler: NOT a model. It enlarges the input image 2, 3 or 4 times (spec 001 section 9) with
 * a Lanczos-3 resampler (../../parse/readers/upscale.ts), run in a parse pool thread within its budget. Sharper
 * edges than a plain stretch, but it invents no detail: an AI upscaler (Real-ESRGAN and the like) is a configured
 * image provider's model.
 */
import { ParseError } from '../../parse/pool';
import type { ImageJob, ImageProvider, ImageResult } from './types';

export const OFFLINE_UPSCALER_MODEL_ID = 'parley-offline-upscaler';

export class OfflineUpscalerProvider implements ImageProvider {
  readonly id = 'offline';

  async generate(job: ImageJob, signal: AbortSignal): Promise<ImageResult> {
    const input = job.inputs[0];
    if (!input) return { ok: false, status: 400, code: 'IMAGE_REQUIRED', message: 'The Upscaler needs an image' };
    if (!job.upscale) return { ok: false, status: 503, code: 'UPSTREAM_ERROR', message: 'The Upscaler is not available here' };
    try {
      const bytes = await job.upscale(input.bytes, job.upscaleFactor ?? 2, signal);
      return { ok: true, images: [{ bytes, mime: 'image/png' }] };
    } catch (e) {
      if (e instanceof ParseError && e.code === 'FAILED') return { ok: false, status: 400, code: 'BAD_IMAGE', message: e.message };
      if (e instanceof ParseError && e.code === 'BUSY') return { ok: false, status: 429, code: 'BUSY', message: e.message };
      throw e;
    }
  }
}
