import { describe, expect, it } from 'vitest';
import { orient } from './orient';
import { kindMatchesExtension, orientationTransform, sniffImage, withExifOrientation } from '../../../src/worker/rooms/library/attachments/image-sniff';
import { baseName, formatFileSize } from '../../../src/protocol/attachments';

const bytes = (s: string | number[]): Uint8Array => (typeof s === 'string' ? new TextEncoder().encode(s) : Uint8Array.from(s));

describe('image sniffing', () => {
  it('knows each accepted format from its first bytes', () => {
    expect(sniffImage(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImage(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('png');
    expect(sniffImage(bytes('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(sniffImage(bytes([0x42, 0x4d, ...Array.from({ length: 30 }, () => 0)]))).toBe('bmp');
    expect(sniffImage(bytes([0x49, 0x49, 0x2a, 0x00]))).toBe('tiff');
    expect(sniffImage(bytes([0x4d, 0x4d, 0x00, 0x2a]))).toBe('tiff');
  });

  it('an SVG or an HTML page named as an image is no image', () => {
    expect(sniffImage(bytes('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'))).toBeNull();
    expect(sniffImage(bytes('<!doctype html><script>alert(1)</script>'))).toBeNull();
    expect(sniffImage(new Uint8Array(0))).toBeNull();
  });

  it('extension and content must agree', () => {
    expect(kindMatchesExtension('jpeg', 'jpg')).toBe(true);
    expect(kindMatchesExtension('tiff', 'tif')).toBe(true);
    expect(kindMatchesExtension('png', 'jpg')).toBe(false);
  });
});

describe('EXIF orientation', () => {
  it('every orientation maps the stored corners upright', () => {
    // A 4x2 image: its top-left stored pixel must land where the orientation says.
    const where = (o: number) => orient(orientationTransform(o, 4, 2), [0, 0]);
    expect(orientationTransform(6, 4, 2)).toMatchObject({ width: 2, height: 4 });
    expect(orientationTransform(3, 4, 2)).toMatchObject({ width: 4, height: 2 });
    expect(where(1)).toEqual([0, 0]);
    expect(where(2)).toEqual([4, 0]); // mirrored: top-right
    expect(where(3)).toEqual([4, 2]); // rotated 180
    expect(where(4)).toEqual([0, 2]); // flipped vertically
    expect(where(5)).toEqual([0, 0]); // transposed
    expect(where(6)).toEqual([2, 0]); // rotated 90 clockwise: top-left goes top-right
    expect(where(7)).toEqual([2, 4]);
    expect(where(8)).toEqual([0, 4]); // rotated 90 counter-clockwise: top-left goes bottom-left
  });

  it('writes an EXIF orientation segment after the JPEG start marker', () => {
    const jpeg = bytes([0xff, 0xd8, 0xff, 0xdb, 0, 1, 2]);
    const tagged = withExifOrientation(jpeg, 6);
    expect([...tagged.subarray(0, 4)]).toEqual([0xff, 0xd8, 0xff, 0xe1]);
    expect(new TextDecoder().decode(tagged.subarray(6, 10))).toBe('Exif');
    expect([...tagged.subarray(tagged.length - 5)]).toEqual([0xff, 0xdb, 0, 1, 2]);
  });
});

describe('sizes and names', () => {
  it('sizes under 1 MB show in KB, otherwise MB', () => {
    expect(formatFileSize(512 * 1024)).toBe('512.0 KB');
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1024.0 KB');
    expect(formatFileSize(3_670_016)).toBe('3.50 MB');
    expect(formatFileSize(12_500_000)).toBe('11.92 MB');
  });

  it('a path traversal name keeps only its last segment', () => {
    expect(baseName('../../etc/passwd')).toBe('passwd');
    expect(baseName('..\\..\\windows\\system.ini')).toBe('system.ini');
    expect(baseName('..')).toBe('file');
    expect(baseName('a\u0000b\u001f.txt')).toBe('ab.txt');
  });
});
