import { describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { checkZipBomb, decodeText, NoTextError, readDocx, readPdf, readTextFile, type PdfJs } from '../../../src/worker/rooms/library/attachments/documents';
import { makeDocx, makePdf, makeZip, makeZipBomb } from './fixtures';

const pdfjs = { getDocument } as unknown as PdfJs;
const buf = (u: Uint8Array): ArrayBuffer => u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;

describe('PDF text with pdf.js', () => {
  it('reads a 30-page PDF page by page, reporting progress after each page', async () => {
    const progress: number[] = [];
    const out = await readPdf(pdfjs, makePdf(30), { onProgress: (p) => progress.push(p.done * 100 + p.total) });
    expect(out.pages).toBe(30);
    expect(out.text).toContain('Page 1 of the test document.');
    expect(out.text).toContain('Page 30 of the test document.');
    expect(out.text.indexOf('Page 2 ')).toBeLessThan(out.text.indexOf('Page 3 '));
    expect(progress).toEqual(Array.from({ length: 30 }, (_, i) => (i + 1) * 100 + 30));
  });

  it('a PDF with JavaScript gives its text and runs nothing', async () => {
    const pdf = makePdf(1, () => 'Harmless text');
    // Add an OpenAction JavaScript to the catalog (pdf.js must neither run nor choke on it).
    const src = new TextDecoder('latin1').decode(pdf).replace('/Type /Catalog', "/Type /Catalog /OpenAction << /S /JavaScript /JS (globalThis.__pwned = 1;) >>");
    const bytes = Uint8Array.from(src, (c) => c.charCodeAt(0));
    const out = await readPdf(pdfjs, bytes);
    expect(out.text).toBe('Harmless text');
    expect((globalThis as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('a file that is not a PDF fails', async () => {
    await expect(readPdf(pdfjs, new TextEncoder().encode('<html>not a pdf</html>'))).rejects.toThrow();
  });
});

describe('DOCX with mammoth', () => {
  it('reads the paragraphs of a DOCX made in the test', async () => {
    const out = await readDocx(buf(makeDocx(['Quarterly report', 'Revenue grew 12% to $4.2M.'])));
    expect(out.text).toBe('Quarterly report\n\nRevenue grew 12% to $4.2M.');
  });

  it('a DOCX with no text gives the spec message', async () => {
    await expect(readDocx(buf(makeDocx([])))).rejects.toThrow(new NoTextError('No text content found in document'));
  });

  it('a truncated DOCX fails cleanly', async () => {
    const whole = makeDocx(['Some text']);
    await expect(readDocx(buf(whole.subarray(0, Math.floor(whole.length / 2))))).rejects.toThrow();
  });

  it('a zip bomb is refused from its directory, before anything is inflated', async () => {
    const bomb = makeZipBomb(20);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => checkZipBomb(bomb)).toThrow(/zip bomb/);
    await expect(readDocx(buf(bomb))).rejects.toThrow(/zip bomb/);
    // Many entries that together declare more than the cap.
    const wide = makeZip(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.txt`, 'x'.repeat(2000)])));
    expect(() => checkZipBomb(wide, 15_000)).toThrow(/size limit/);
    expect(() => checkZipBomb(wide, 1_000_000, 5)).toThrow(/too many entries/);
    expect(() => checkZipBomb(wide)).not.toThrow();
  });
});

describe('text formats', () => {
  it('decodes UTF-8, UTF-16 with a BOM and windows-1252', () => {
    expect(decodeText(new TextEncoder().encode('héllo'))).toBe('héllo');
    expect(decodeText(Uint8Array.from([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toBe('hi');
    expect(decodeText(Uint8Array.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]))).toBe('hi');
    expect(decodeText(Uint8Array.from([0x63, 0x61, 0x66, 0xe9]))).toBe('café');
  });

  it('binary or blank content is no text', () => {
    expect(() => readTextFile(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]))).toThrow('No text content found in document');
    expect(() => readTextFile(new TextEncoder().encode('  \n\t '))).toThrow('No text content found in document');
  });
});
