/**
 * Pure checks of image bytes: the real type from the first bytes (an SVG or an HTML page named .png is not an
 * image we accept), and the EXIF orientation transform. No DOM; tested in Node.
 */

export type ImageKind = 'jpeg' | 'png' | 'webp' | 'bmp' | 'tiff' | 'gif';

/** The image type the bytes start with, or null when they are no image format we read. */
export function sniffImage(head: Uint8Array): ImageKind | null {
  const b = (i: number): number => head[i] ?? -1;
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpeg';
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47 && b(4) === 0x0d && b(5) === 0x0a && b(6) === 0x1a && b(7) === 0x0a) return 'png';
  if (b(0) === 0x52 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x46 && b(8) === 0x57 && b(9) === 0x45 && b(10) === 0x42 && b(11) === 0x50) return 'webp';
  if (b(0) === 0x42 && b(1) === 0x4d && head.length >= 26) return 'bmp';
  if ((b(0) === 0x49 && b(1) === 0x49 && b(2) === 0x2a && b(3) === 0x00) || (b(0) === 0x4d && b(1) === 0x4d && b(2) === 0x00 && b(3) === 0x2a)) return 'tiff';
  if (b(0) === 0x47 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x38) return 'gif';
  return null;
}

/** Which extensions name which kind (jpg and jpeg are one; tif and tiff are one). */
export function kindMatchesExtension(kind: ImageKind, ext: string): boolean {
  switch (kind) {
    case 'jpeg':
      return ext === 'jpg' || ext === 'jpeg';
    case 'tiff':
      return ext === 'tif' || ext === 'tiff';
    default:
      return ext === kind;
  }
}

export const MIME_OF: Record<ImageKind, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  gif: 'image/gif',
};

export interface OrientedCanvas {
  /** Canvas size once oriented (orientations 5 to 8 swap width and height). */
  width: number;
  height: number;
  /** ctx.setTransform(a, b, c, d, e, f) before drawing the image at (0, 0, w, h). */
  matrix: [number, number, number, number, number, number];
}

/**
 * The canvas size and transform that draw a `w` x `h` image stored with EXIF orientation `o` (1 to 8) upright.
 * Any other value is treated as 1.
 */
export function orientationTransform(o: number, w: number, h: number): OrientedCanvas {
  switch (o) {
    case 2:
      return { width: w, height: h, matrix: [-1, 0, 0, 1, w, 0] };
    case 3:
      return { width: w, height: h, matrix: [-1, 0, 0, -1, w, h] };
    case 4:
      return { width: w, height: h, matrix: [1, 0, 0, -1, 0, h] };
    case 5:
      return { width: h, height: w, matrix: [0, 1, 1, 0, 0, 0] };
    case 6:
      return { width: h, height: w, matrix: [0, 1, -1, 0, h, 0] };
    case 7:
      return { width: h, height: w, matrix: [0, -1, -1, 0, h, w] };
    case 8:
      return { width: h, height: w, matrix: [0, -1, 1, 0, 0, w] };
    default:
      return { width: w, height: h, matrix: [1, 0, 0, 1, 0, 0] };
  }
}

/**
 * A JPEG with an EXIF APP1 segment giving `orientation`, inserted right after the SOI marker (tests, and the
 * worker's check of whether the browser applies EXIF orientation when it decodes).
 */
export function withExifOrientation(jpeg: Uint8Array, orientation: number): Uint8Array {
  // TIFF header (big-endian) with one IFD entry: tag 0x0112 (Orientation), SHORT, count 1, value.
  const tiff = [0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation & 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00];
  const payload = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00, ...tiff];
  const length = payload.length + 2;
  const app1 = [0xff, 0xe1, (length >> 8) & 0xff, length & 0xff, ...payload];
  const out = new Uint8Array(jpeg.length + app1.length);
  out.set(jpeg.subarray(0, 2), 0);
  out.set(app1, 2);
  out.set(jpeg.subarray(2), 2 + app1.length);
  return out;
}
