import { describe, expect, it } from 'vitest';
import { compressionMessage, prepareImage } from '../../../src/worker/rooms/library/attachments/image';
import { CompressionError } from '../../../src/worker/rooms/library/attachments/compression-schedule';
import { formatFileSize } from '../../../src/protocol/attachments';

const RESIZE = 'Please resize your image using an image editor and try again.';
const COULD_NOT = (x: string) => `Your image (${x}) could not be automatically compressed to fit the 3.5MB limit. `;

describe('compression messages (spec 001 section 8)', () => {
  it('no canvas context: the canvas hint (privacy settings, ad blockers)', () => {
    expect(compressionMessage(new CompressionError('Could not get canvas context'), '5.00 MB')).toBe(
      `${COULD_NOT('5.00 MB')}Your browser may be blocking canvas access (privacy or canvas security settings, or an ad blocker). ${RESIZE}`,
    );
  });

  it('the image would not load: the format hint', () => {
    expect(compressionMessage(new CompressionError('Failed to load image'), '4.20 MB')).toBe(`${COULD_NOT('4.20 MB')}The image may be in an unsupported or damaged format. ${RESIZE}`);
  });

  it('out of iterations or an encoder failure: no hint, only the advice', () => {
    const expected = `${COULD_NOT('9.99 MB')}${RESIZE}`;
    expect(compressionMessage(new CompressionError('Failed to compress image within the specified iterations'), '9.99 MB')).toBe(expected);
    expect(compressionMessage(new CompressionError('Failed to compress image'), '9.99 MB')).toBe(expected);
  });

  it('anything else is the unexpected failure', () => {
    const expected = 'Your image (3.60 MB) could not be processed. Please try a different image or resize it to under 3.5MB using an image editor.';
    expect(compressionMessage(new Error('out of memory'), '3.60 MB')).toBe(expected);
    expect(compressionMessage('a string thrown', '3.60 MB')).toBe(expected);
    expect(compressionMessage(undefined, '3.60 MB')).toBe(expected);
  });

  it('sizes under 1 MB show in KB (one decimal), from 1 MB in MB (two decimals)', () => {
    expect(formatFileSize(0)).toBe('0.0 KB');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1024.0 KB');
    expect(formatFileSize(1024 * 1024)).toBe('1.00 MB');
    expect(formatFileSize(3_670_017)).toBe('3.50 MB');
  });
});

/** A PNG-looking Blob of `size` bytes (the signature and IHDR the sniffer reads, then zeros). */
function pngOf(size: number): Blob {
  const bytes = new Uint8Array(size);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  return new Blob([bytes], { type: 'image/png' });
}

describe('compression disabled (spec 001 section 5)', () => {
  it('an image over 3.5 MB is refused with the spec message, never compressed', async () => {
    let compressing = 0;
    const r = await prepareImage(pngOf(4 * 1024 * 1024), 'big.png', { compressionEnabled: false, onCompressing: () => compressing++ });
    expect(r).toMatchObject({ isValid: false, error: 'File size (4.00 MB) exceeds the 3.5MB limit. Please choose a smaller image or enable compression.', title: 'Error adding image' });
    expect(compressing).toBe(0);
  });

  it('an image within 3,670,016 bytes passes unchanged either way', async () => {
    const r = await prepareImage(pngOf(3_670_016), 'ok.png', { compressionEnabled: false });
    expect(r).toMatchObject({ isValid: true, wasCompressed: false });
  });

  it('enabled (the default), an image over the limit goes on to compression (here: unavailable in Node)', async () => {
    const r = await prepareImage(pngOf(3_670_017), 'big.png');
    expect(r.isValid).toBe(false);
    expect(r.error).toContain('Automatic compression is not available in your current browser configuration.');
  });
});
