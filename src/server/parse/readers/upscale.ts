/**
 * The offline Upscaler (spec 001 sections 6 and 9: upscale factors 2, 3 and 4): a Lanczos resampler, not a model.
 * It decodes a PNG or JPEG, enlarges it by the factor with a separable Lanczos-3 filter (a = 3: each output pixel
 * is a weighted sum of 6 input pixels per axis, weights sinc(x)·sinc(x/3), normalised), keeps transparency, and
 * encodes PNG. Runs in a parse pool thread (../pool.ts), within the item budget: the input may be anything a user
 * uploads. Sizes are checked from the header before anything is decoded.
 */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { UPSCALE_FACTORS, UPSCALE_MAX_OUTPUT_PIXELS, type UpscaleFactor } from '../../../protocol/image-rules';

const LOBES = 3;

export class UpscaleError extends Error {
  override name = 'UpscaleError';
}

function headerSize(data: Uint8Array): { format: 'png' | 'jpeg'; width: number; height: number } | null {
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length >= 24 && data[0] === 0x89 && data[1] === 0x50) return { format: 'png', width: v.getUint32(16), height: v.getUint32(20) };
  if (data.length >= 4 && data[0] === 0xff && data[1] === 0xd8) {
    let i = 2;
    while (i + 9 < data.length) {
      if (data[i] !== 0xff) return null;
      const marker = data[i + 1] as number;
      const len = v.getUint16(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { format: 'jpeg', width: v.getUint16(i + 7), height: v.getUint16(i + 5) };
      i += 2 + len;
    }
  }
  return null;
}

/** The output size of an upscale, or the plain reason it cannot be done. */
export function upscaleSize(width: number, height: number, factor: number): { ok: true; width: number; height: number } | { ok: false; message: string } {
  if (!(UPSCALE_FACTORS as readonly number[]).includes(factor)) return { ok: false, message: `The upscale factor must be ${UPSCALE_FACTORS.join(', ')}` };
  if (width < 1 || height < 1) return { ok: false, message: 'The image has no pixels' };
  if (width * factor * height * factor > UPSCALE_MAX_OUTPUT_PIXELS) {
    return { ok: false, message: `The upscaled image would have more than 4096×4096 pixels (${width}×${height} × ${factor}): choose a smaller factor or a smaller image` };
  }
  return { ok: true, width: width * factor, height: height * factor };
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const p = Math.PI * x;
  return Math.sin(p) / p;
}

/** For each output index along one axis: the first input index and the normalised weights of its taps. */
function taps(inSize: number, factor: number): { first: Int32Array; weights: Float32Array; n: number } {
  const outSize = inSize * factor;
  const n = 2 * LOBES;
  const first = new Int32Array(outSize);
  const weights = new Float32Array(outSize * n);
  for (let o = 0; o < outSize; o++) {
    const centre = (o + 0.5) / factor - 0.5;
    const start = Math.floor(centre) - LOBES + 1;
    first[o] = start;
    let sum = 0;
    for (let k = 0; k < n; k++) {
      const x = centre - (start + k);
      const w = Math.abs(x) < LOBES ? sinc(x) * sinc(x / LOBES) : 0;
      weights[o * n + k] = w;
      sum += w;
    }
    for (let k = 0; k < n; k++) weights[o * n + k] = (weights[o * n + k] as number) / sum;
  }
  return { first, weights, n };
}

const clampIndex = (i: number, size: number): number => (i < 0 ? 0 : i >= size ? size - 1 : i);
const toByte = (v: number): number => (v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v));

/**
 * Lanczos-3 upscale of RGBA pixels by an integer factor. Colour is filtered premultiplied by alpha, so transparent
 * pixels do not bleed their (invisible) colour into their neighbours.
 */
export function lanczosUpscale(rgba: Uint8Array, width: number, height: number, factor: number): Uint8Array {
  const outW = width * factor;
  const outH = height * factor;
  const h = taps(width, factor);
  const v = taps(height, factor);
  // Horizontal pass: height rows of outW premultiplied RGBA floats.
  const mid = new Float32Array(outW * height * 4);
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    for (let o = 0; o < outW; o++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      const s = h.first[o] as number;
      for (let k = 0; k < h.n; k++) {
        const w = h.weights[o * h.n + k] as number;
        if (w === 0) continue;
        const i = row + clampIndex(s + k, width) * 4;
        const alpha = (rgba[i + 3] as number) / 255;
        r += w * (rgba[i] as number) * alpha;
        g += w * (rgba[i + 1] as number) * alpha;
        b += w * (rgba[i + 2] as number) * alpha;
        a += w * alpha;
      }
      const m = (y * outW + o) * 4;
      mid[m] = r;
      mid[m + 1] = g;
      mid[m + 2] = b;
      mid[m + 3] = a;
    }
  }
  // Vertical pass, then un-premultiply.
  const out = new Uint8Array(outW * outH * 4);
  for (let o = 0; o < outH; o++) {
    const s = v.first[o] as number;
    for (let x = 0; x < outW; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let k = 0; k < v.n; k++) {
        const w = v.weights[o * v.n + k] as number;
        if (w === 0) continue;
        const m = (clampIndex(s + k, height) * outW + x) * 4;
        r += w * (mid[m] as number);
        g += w * (mid[m + 1] as number);
        b += w * (mid[m + 2] as number);
        a += w * (mid[m + 3] as number);
      }
      const p = (o * outW + x) * 4;
      const alpha = a <= 0 ? 0 : a >= 1 ? 1 : a;
      out[p] = alpha === 0 ? 0 : toByte(r / alpha);
      out[p + 1] = alpha === 0 ? 0 : toByte(g / alpha);
      out[p + 2] = alpha === 0 ? 0 : toByte(b / alpha);
      out[p + 3] = toByte(alpha * 255);
    }
  }
  return out;
}

/** Decodes, upscales and encodes: the PNG bytes of the image `factor` times larger. */
export function upscaleImage(data: Uint8Array, factor: UpscaleFactor): Uint8Array {
  const head = headerSize(data);
  if (!head) throw new UpscaleError('The Upscaler takes PNG and JPEG images');
  const size = upscaleSize(head.width, head.height, factor);
  if (!size.ok) throw new UpscaleError(size.message);
  let rgba: Uint8Array;
  let width: number;
  let height: number;
  try {
    if (head.format === 'png') {
      const png = PNG.sync.read(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      rgba = new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength);
      width = png.width;
      height = png.height;
    } else {
      const img = jpeg.decode(data, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: Math.ceil(UPSCALE_MAX_OUTPUT_PIXELS / 1_000_000), maxMemoryUsageInMB: 512 });
      rgba = img.data;
      width = img.width;
      height = img.height;
    }
  } catch {
    throw new UpscaleError('The image could not be read (damaged or an unsupported kind of PNG or JPEG)');
  }
  // The decoder's own size is what counts (a header could lie).
  const checked = upscaleSize(width, height, factor);
  if (!checked.ok) throw new UpscaleError(checked.message);
  const out = new PNG({ width: checked.width, height: checked.height });
  out.data = Buffer.from(lanczosUpscale(rgba, width, height, factor).buffer);
  return new Uint8Array(PNG.sync.write(out, { colorType: 6 }));
}
