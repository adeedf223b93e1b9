/**
 * Image upload validation and compression (spec 001 sections 4, 5 and 8), run in the engine worker with
 * OffscreenCanvas and createImageBitmap (the same code runs on a main thread: the benchmark compares the two).
 *
 * 1. The type must start with image/, the extension must be one of jpg, jpeg, png, webp, bmp, tiff, tif, and the
 *    bytes must really be that image (an SVG or HTML page named .png is refused).
 * 2. Up to 3,670,016 bytes pass unchanged; TIFF and BMP are always converted (browsers cannot show TIFF and
 *    providers take neither; docs/decisions.md). TIFF is decoded with UTIF (utif2); BMP by the browser.
 * 3. Larger images are compressed (./compression-schedule.ts): JPEG, except PNGs with real transparency.
 *    EXIF orientation is read with exifr and applied when the browser's decoder does not apply it itself.
 */
import exifr from 'exifr';
import * as UTIF from 'utif2';
import { COMPRESSION_ERROR, fileExtension, formatFileSize, IMAGE_EXTENSIONS, IMAGE_SIZE_LIMIT, IMAGE_UPLOAD } from '../../../../protocol/attachments';
import { CompressionError, hasRealTransparency, outputFormat, runCompression, type CompressionStep, type OutputFormat } from './compression-schedule';
import { kindMatchesExtension, MIME_OF, orientationTransform, sniffImage, withExifOrientation, type ImageKind } from './image-sniff';

/** Largest image decoded (pixels): beyond it a tiny file could ask for gigabytes of canvas. Ours. */
export const MAX_DECODE_PIXELS = 100_000_000;

export interface PreparedImage {
  blob: Blob;
  mimeType: string;
  wasCompressed: boolean;
  originalSize: number;
  finalSize: number;
  /** Attempts the compression loop made (0 when it did not run). */
  iterations: number;
}

/** Spec 001 section 3: image upload validation result (isValid, file, wasCompressed, error), plus a title. */
export type ImageValidation =
  | { isValid: true; file: PreparedImage; wasCompressed: boolean; error: null }
  | { isValid: false; file: null; wasCompressed: false; error: string; title: string };

export interface ImageOptions {
  /** Spec 001 section 5: compression is on by default. */
  compressionEnabled?: boolean;
  /** Called once when compression starts (the 'Compressing Image' notice). */
  onCompressing?: () => void;
  signal?: AbortSignal;
}

const ACCEPTED = new Set<string>(IMAGE_EXTENSIONS);

function refuse(error: string, title: string = IMAGE_UPLOAD.uploadErrorTitle): ImageValidation {
  return { isValid: false, file: null, wasCompressed: false, error, title };
}

export function compressionSupported(): boolean {
  return typeof OffscreenCanvas === 'function' && typeof createImageBitmap === 'function';
}

/** Validates an image and compresses it when it is over the limit (or converts a TIFF or BMP). */
export async function prepareImage(blob: Blob, name: string, options: ImageOptions = {}): Promise<ImageValidation> {
  if (!blob.type.startsWith('image/')) return refuse(IMAGE_UPLOAD.notAnImage);
  const ext = fileExtension(name);
  if (!ACCEPTED.has(ext)) return refuse(IMAGE_UPLOAD.unsupportedFormatText, IMAGE_UPLOAD.unsupportedFormatTitle);
  const kind = sniffImage(new Uint8Array(await blob.slice(0, 32).arrayBuffer()));
  if (kind === null || !kindMatchesExtension(kind, ext)) return refuse(IMAGE_UPLOAD.unsupportedFormatText, IMAGE_UPLOAD.unsupportedFormatTitle);
  const size = formatFileSize(blob.size);
  const mustConvert = kind === 'tiff' || kind === 'bmp';
  if (blob.size <= IMAGE_SIZE_LIMIT && !mustConvert) {
    const typed = blob.type === MIME_OF[kind] ? blob : new Blob([blob], { type: MIME_OF[kind] });
    return { isValid: true, file: { blob: typed, mimeType: MIME_OF[kind], wasCompressed: false, originalSize: blob.size, finalSize: blob.size, iterations: 0 }, wasCompressed: false, error: null };
  }
  if (blob.size > IMAGE_SIZE_LIMIT && options.compressionEnabled === false) return refuse(IMAGE_UPLOAD.compressionDisabled(size));
  if (!compressionSupported()) return refuse(IMAGE_UPLOAD.compressionUnavailable(size));
  if (blob.size > IMAGE_SIZE_LIMIT) options.onCompressing?.();
  try {
    const out = await compressImage(blob, kind, options.signal);
    return { isValid: true, file: { ...out, originalSize: blob.size, wasCompressed: true }, wasCompressed: true, error: null };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return refuse(compressionMessage(error, size));
  }
}

/** Spec 001 section 8: the user's message for a compressor error (its internal message decides the hint). */
export function compressionMessage(error: unknown, size: string): string {
  const message = error instanceof Error ? error.message : '';
  if (message === COMPRESSION_ERROR.context) return IMAGE_UPLOAD.compressionFailed(size, 'canvas');
  if (message === COMPRESSION_ERROR.load) return IMAGE_UPLOAD.compressionFailed(size, 'format');
  if (message === COMPRESSION_ERROR.iterations || message === COMPRESSION_ERROR.failed) return IMAGE_UPLOAD.compressionFailed(size, null);
  return IMAGE_UPLOAD.unexpected(size);
}

interface Decoded {
  bitmap: ImageBitmap;
  orientation: number;
}

async function decode(blob: Blob, kind: ImageKind): Promise<Decoded> {
  let bitmap: ImageBitmap;
  try {
    if (kind === 'tiff') {
      const buffer = await blob.arrayBuffer();
      const [ifd] = UTIF.decode(buffer);
      if (!ifd) throw new Error('no image in the TIFF');
      if (ifd.width * ifd.height > MAX_DECODE_PIXELS || ifd.width <= 0 || ifd.height <= 0) throw new Error('TIFF too large');
      UTIF.decodeImage(buffer, ifd);
      const rgba = UTIF.toRGBA8(ifd);
      bitmap = await createImageBitmap(new ImageData(new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, ifd.width * ifd.height * 4), ifd.width, ifd.height));
    } else {
      bitmap = await createImageBitmap(blob);
    }
  } catch {
    throw new CompressionError(COMPRESSION_ERROR.load);
  }
  if (bitmap.width * bitmap.height > MAX_DECODE_PIXELS) {
    bitmap.close();
    throw new CompressionError(COMPRESSION_ERROR.load);
  }
  let orientation = 1;
  if (kind === 'jpeg' && !(await browserAppliesOrientation())) orientation = (await exifr.orientation(blob).catch(() => undefined)) ?? 1;
  return { bitmap, orientation };
}

function context(canvas: OffscreenCanvas): OffscreenCanvasRenderingContext2D {
  const ctx = canvas.getContext('2d', { willReadFrequently: false });
  if (!ctx) throw new CompressionError(COMPRESSION_ERROR.context);
  return ctx;
}

/** Transparency of a decoded image, checked on its pixels. */
function bitmapHasTransparency(bitmap: ImageBitmap): boolean {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new CompressionError(COMPRESSION_ERROR.context);
  ctx.drawImage(bitmap, 0, 0);
  return hasRealTransparency(ctx.getImageData(0, 0, bitmap.width, bitmap.height).data);
}

async function encode(decoded: Decoded, format: OutputFormat, step: CompressionStep): Promise<Blob> {
  const w = Math.max(1, Math.round(decoded.bitmap.width * step.scale));
  const h = Math.max(1, Math.round(decoded.bitmap.height * step.scale));
  const oriented = orientationTransform(decoded.orientation, w, h);
  const canvas = new OffscreenCanvas(oriented.width, oriented.height);
  const ctx = context(canvas);
  if (format === 'image/jpeg') {
    // JPEG has no alpha: transparent pixels become white rather than black.
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, oriented.width, oriented.height);
  }
  ctx.imageSmoothingQuality = 'high';
  ctx.setTransform(...oriented.matrix);
  ctx.drawImage(decoded.bitmap, 0, 0, w, h);
  try {
    return await canvas.convertToBlob({ type: format, quality: step.quality });
  } catch {
    throw new CompressionError(COMPRESSION_ERROR.failed);
  }
}

/** Compresses (or converts) a decoded image with the spec's loop. */
export async function compressImage(blob: Blob, kind: ImageKind, signal?: AbortSignal): Promise<Omit<PreparedImage, 'originalSize' | 'wasCompressed'>> {
  const decoded = await decode(blob, kind);
  try {
    const transparent = kind === 'png' || kind === 'tiff' || kind === 'bmp' ? bitmapHasTransparency(decoded.bitmap) : false;
    // A TIFF or BMP with real transparency becomes a PNG too (it has no JPEG of its own to stay).
    const format = outputFormat(kind === 'png' || kind === 'tiff' || kind === 'bmp', transparent);
    const result = await runCompression(format, async (step) => {
      const out = await encode(decoded, format, step);
      return { output: out, size: out.size };
    }, signal ? { signal } : {});
    return { blob: result.output, mimeType: format, finalSize: result.size, iterations: result.attempts.length };
  } finally {
    decoded.bitmap.close();
  }
}

let appliesOrientation: Promise<boolean> | null = null;

/**
 * Whether this browser's createImageBitmap applies EXIF orientation (current Chromium and Firefox do): a 2x1
 * JPEG tagged orientation 6 (rotated 90 degrees) decodes as 1x2 when it does. Checked once.
 */
export function browserAppliesOrientation(): Promise<boolean> {
  appliesOrientation ??= (async () => {
    try {
      const canvas = new OffscreenCanvas(2, 1);
      context(canvas).fillRect(0, 0, 2, 1);
      const jpeg = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg' })).arrayBuffer());
      const tagged = withExifOrientation(jpeg, 6);
      const bitmap = await createImageBitmap(new Blob([tagged as BlobPart], { type: 'image/jpeg' }));
      const applied = bitmap.width === 1 && bitmap.height === 2;
      bitmap.close();
      return applied;
    } catch {
      return true;
    }
  })();
  return appliesOrientation;
}
