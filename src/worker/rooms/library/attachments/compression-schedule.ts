/**
 * The compression loop of spec 001 section 4, as pure code over an `encode` function, so that its schedule is
 * tested without a browser and the same loop runs in the engine worker (OffscreenCanvas) and, for the benchmark,
 * on the main thread.
 *
 * - starts at quality 0.8 and lowers quality by 0.1 per attempt down to 0.1;
 * - once quality is at or below 0.2 it also shrinks scale by 0.1 per attempt, with a floor of 0.3;
 * - stops at the first result within the size limit; at most 12 iterations;
 * - output is JPEG, except PNGs with real transparency, which stay PNG (checked on the pixels).
 *
 * Quality and scale are kept in integer tenths, so 0.8 - 0.1 - ... never drifts (0.30000000000000004).
 */
import { COMPRESSION, COMPRESSION_ERROR, IMAGE_SIZE_LIMIT } from '../../../../protocol/attachments';

export interface CompressionStep {
  /** 1-based attempt number. */
  iteration: number;
  quality: number;
  scale: number;
}

const tenths = (x: number): number => Math.round(x * 10);

/** The (quality, scale) of every attempt the loop may make, in order: exactly COMPRESSION.maxIterations of them. */
export function compressionSchedule(maxIterations: number = COMPRESSION.maxIterations): CompressionStep[] {
  const steps: CompressionStep[] = [];
  let q = tenths(COMPRESSION.initialQuality);
  let s = 10;
  for (let i = 1; i <= maxIterations; i++) {
    steps.push({ iteration: i, quality: q / 10, scale: s / 10 });
    q = Math.max(tenths(COMPRESSION.minQuality), q - tenths(COMPRESSION.qualityStep));
    if (q <= tenths(COMPRESSION.shrinkBelowQuality)) s = Math.max(tenths(COMPRESSION.minScale), s - tenths(COMPRESSION.scaleStep));
  }
  return steps;
}

export type OutputFormat = 'image/jpeg' | 'image/png';

/** Spec 001 section 4: JPEG, except an image that is a PNG and has real transparency. */
export function outputFormat(isPng: boolean, hasTransparency: boolean): OutputFormat {
  return isPng && hasTransparency ? 'image/png' : 'image/jpeg';
}

/** Whether any pixel of RGBA data is not fully opaque (the alpha of every 4th byte). */
export function hasRealTransparency(rgba: Uint8ClampedArray | Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return true;
  return false;
}

export interface CompressionResult<T> {
  output: T;
  size: number;
  step: CompressionStep;
  /** Attempts made (encodes that ran; a PNG at an unchanged scale is not encoded again). */
  attempts: CompressionStep[];
}

export class CompressionError extends Error {
  override name = 'CompressionError';
}

/**
 * Runs the schedule: `encode(step)` gives an output and its size; the first within `limit` wins. A PNG ignores
 * quality, so while the scale is unchanged its previous result is reused instead of encoding the same bytes again.
 * Throws CompressionError('Failed to compress image within the specified iterations') when none fits.
 */
export async function runCompression<T>(
  format: OutputFormat,
  encode: (step: CompressionStep) => Promise<{ output: T; size: number }>,
  options: { limit?: number; maxIterations?: number; signal?: AbortSignal } = {},
): Promise<CompressionResult<T>> {
  const limit = options.limit ?? IMAGE_SIZE_LIMIT;
  const attempts: CompressionStep[] = [];
  let last: { scale: number; size: number } | null = null;
  for (const step of compressionSchedule(options.maxIterations)) {
    options.signal?.throwIfAborted();
    if (format === 'image/png' && last !== null && last.scale === step.scale) continue;
    attempts.push(step);
    const { output, size } = await encode(step);
    if (size <= limit) return { output, size, step, attempts };
    last = { scale: step.scale, size };
  }
  throw new CompressionError(COMPRESSION_ERROR.iterations);
}
