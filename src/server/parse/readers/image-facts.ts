/**
 * The offline engine's deterministic image description (no vision model configured): the image's size, its main
 * colours and any text stored in it (EXIF/XMP description, comment, title). It looks at pixels but recognises
 * nothing, and says so. Decoding uses pngjs and jpeg-js (pure JS, with a pixel cap); WebP, GIF and BMP get their
 * size from the header only. Runs in the document worker thread.
 */
import exifr from 'exifr';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { formatFileSize } from '../../../protocol/attachments';

/** Largest image decoded for its colours (megapixels). */
const MAX_MEGAPIXELS = 50;

export interface ImageFacts {
  format: string;
  width: number | null;
  height: number | null;
  bytes: number;
  colours: { name: string; share: number }[];
  text: string[];
}

const PALETTE: readonly [string, number, number, number][] = [
  ['black', 0, 0, 0], ['white', 255, 255, 255], ['grey', 128, 128, 128], ['red', 220, 30, 30], ['orange', 245, 140, 20],
  ['yellow', 245, 225, 40], ['green', 40, 160, 60], ['teal', 0, 128, 128], ['cyan', 60, 200, 230], ['blue', 40, 80, 220],
  ['navy', 20, 30, 100], ['purple', 130, 50, 170], ['pink', 240, 130, 180], ['brown', 130, 80, 40], ['beige', 225, 205, 165],
];

function nearest(r: number, g: number, b: number): string {
  let best = 'black';
  let bestD = Infinity;
  for (const [name, pr, pg, pb] of PALETTE) {
    const d = (r - pr) ** 2 * 2 + (g - pg) ** 2 * 4 + (b - pb) ** 2 * 3;
    if (d < bestD) {
      bestD = d;
      best = name;
    }
  }
  return best;
}

/** Shares of named colours over at most ~40,000 sampled pixels (alpha below 128 is skipped). */
export function colourShares(rgba: Uint8Array, width: number, height: number): { name: string; share: number }[] {
  const step = Math.max(1, Math.floor(Math.sqrt((width * height) / 40_000)));
  const counts = new Map<string, number>();
  let total = 0;
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width; x += step) {
      const i = (y * width + x) * 4;
      if ((rgba[i + 3] ?? 255) < 128) continue;
      const name = nearest(rgba[i] ?? 0, rgba[i + 1] ?? 0, rgba[i + 2] ?? 0);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      total++;
    }
  }
  if (total === 0) return [];
  return [...counts.entries()]
    .map(([name, n]) => ({ name, share: Math.round((n / total) * 100) }))
    .filter((c) => c.share >= 5)
    .sort((a, b) => b.share - a.share || a.name.localeCompare(b.name))
    .slice(0, 4);
}

function headerSize(data: Uint8Array): { format: string; width: number; height: number } | null {
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length >= 24 && data[0] === 0x89 && data[1] === 0x50) return { format: 'PNG', width: v.getUint32(16), height: v.getUint32(20) };
  if (data.length >= 10 && data[0] === 0x47 && data[1] === 0x49) return { format: 'GIF', width: v.getUint16(6, true), height: v.getUint16(8, true) };
  if (data.length >= 26 && data[0] === 0x42 && data[1] === 0x4d) return { format: 'BMP', width: Math.abs(v.getInt32(18, true)), height: Math.abs(v.getInt32(22, true)) };
  if (data.length >= 30 && data[8] === 0x57 && data[9] === 0x45 && data[10] === 0x42 && data[11] === 0x50) {
    const chunk = String.fromCharCode(...data.subarray(12, 16));
    if (chunk === 'VP8X') return { format: 'WebP', width: 1 + (v.getUint32(24, true) & 0xffffff), height: 1 + (v.getUint32(27, true) & 0xffffff) };
    if (chunk === 'VP8L') {
      const b = v.getUint32(21, true);
      return { format: 'WebP', width: (b & 0x3fff) + 1, height: ((b >> 14) & 0x3fff) + 1 };
    }
    if (chunk === 'VP8 ') return { format: 'WebP', width: v.getUint16(26, true) & 0x3fff, height: v.getUint16(28, true) & 0x3fff };
  }
  if (data[0] === 0xff && data[1] === 0xd8) {
    let i = 2;
    while (i + 9 < data.length) {
      if (data[i] !== 0xff) return null;
      const marker = data[i + 1] as number;
      const len = v.getUint16(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { format: 'JPEG', width: v.getUint16(i + 7), height: v.getUint16(i + 5) };
      i += 2 + len;
    }
  }
  return null;
}

export async function imageFacts(data: Uint8Array): Promise<ImageFacts> {
  const head = headerSize(data);
  const facts: ImageFacts = { format: head?.format ?? 'unknown', width: head?.width ?? null, height: head?.height ?? null, bytes: data.length, colours: [], text: [] };
  const megapixels = ((head?.width ?? 0) * (head?.height ?? 0)) / 1e6;
  try {
    if (head?.format === 'PNG' && megapixels <= MAX_MEGAPIXELS) {
      const png = PNG.sync.read(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      facts.colours = colourShares(png.data, png.width, png.height);
    } else if (head?.format === 'JPEG' && megapixels <= MAX_MEGAPIXELS) {
      const img = jpeg.decode(data, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_MEGAPIXELS, maxMemoryUsageInMB: 512 });
      facts.colours = colourShares(img.data, img.width, img.height);
    }
  } catch {
    // Colours are a nicety: a damaged image still gets its size.
  }
  try {
    const meta = (await exifr.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { tiff: true, xmp: true, iptc: true, pick: ['ImageDescription', 'UserComment', 'XPComment', 'XPTitle', 'title', 'description', 'Caption', 'Headline'] })) as Record<string, unknown> | undefined;
    for (const value of Object.values(meta ?? {})) {
      const text = typeof value === 'string' ? value : value instanceof Uint8Array ? new TextDecoder().decode(value) : typeof value === 'object' && value !== null && 'value' in value ? String((value as { value: unknown }).value) : '';
      const clean = text.replace(/\s+/g, ' ').trim();
      if (clean !== '' && !facts.text.includes(clean)) facts.text.push(clean.slice(0, 500));
    }
  } catch {
    // No readable metadata.
  }
  return facts;
}

/** The description text the offline engine answers with. */
export function describeFacts(f: ImageFacts): string {
  const size = f.width !== null && f.height !== null ? `${f.width}×${f.height} pixels` : 'unknown dimensions';
  const lines = [`Image: ${f.format === 'unknown' ? 'an image' : `a ${f.format} image`}, ${size}, ${formatFileSize(f.bytes)}.`];
  lines.push(f.colours.length > 0 ? `Main colours: ${f.colours.map((c) => `${c.name} (${c.share}%)`).join(', ')}.` : 'Main colours: not determined.');
  lines.push(f.text.length > 0 ? `Text found: ${f.text.map((t) => `"${t}"`).join('; ')}.` : 'Text found: none.');
  lines.push('(Described by the built-in offline engine, which reports size, colours and stored text but does not recognise what the image shows.)');
  return lines.join('\n');
}
