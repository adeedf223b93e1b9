/**
 * The document corpus made with real tools (tests/fixtures/documents/make.py: openpyxl, xlwt, python-docx,
 * LibreOffice, zip, 7z, qpdf, Apache POI; reference text from pdftotext or what the generator wrote; RAR archives
 * from libarchive's tests, rar-from-libarchive.sh), and Word 6 files written
 * from the format (make-word6.mjs: LibreOffice no longer saves Word 6/95; it reads these). Each sample is read by the
 * gateway (extractText) and, for PDF and DOCX, by the browser's readers too (pdf.js, mammoth), and must give at least
 * 95% of the reference's words; each password-protected file gets the one message; each damaged file a message that
 * names its format.
 */
import * as CFB from 'cfb';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { damagedMessage, extractText } from '../../../src/server/parse/readers/document';
import { OLD_WORD_MESSAGE } from '../../../src/server/parse/readers/legacy';
import { PROTECTED_MESSAGE } from '../../../src/server/parse/readers/protection';
import { readDocx, readPdf, type PdfJs } from '../../../src/worker/rooms/library/attachments/documents';

const DIR = join(__dirname, '../../fixtures/documents');
const bytes = (p: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, p)));
const ext = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/** Words as a multiset: lower case, letters and digits, punctuation around them dropped. */
function words(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}.]+/u)) {
    const t = w.replace(/^\.+|\.+$/g, '');
    if (t) m.set(t, (m.get(t) ?? 0) + 1);
  }
  return m;
}

/** Share of the reference's words (with their counts) found in the text. */
export function recall(reference: string, text: string): number {
  const want = words(reference);
  const got = words(text);
  let total = 0;
  let found = 0;
  for (const [w, n] of want) {
    total += n;
    found += Math.min(n, got.get(w) ?? 0);
  }
  return total === 0 ? 1 : found / total;
}

const samples = readdirSync(DIR).filter((f) => /^sample[.-]/.test(f));
const reference = (name: string): string => readFileSync(join(DIR, 'reference', `${name}.txt`), 'utf8');

describe('document corpus: samples made with real tools', () => {
  it('has the formats it is made of', () => {
    expect(samples.map(ext).sort()).toEqual(expect.arrayContaining(['doc', 'docx', 'epub', 'ods', 'odt', 'pdf', 'ppt', 'rar', 'xls', 'xlsx']));
  });

  for (const name of samples) {
    it(`${name}: the gateway reads at least 95% of the reference's words`, async () => {
      const text = await extractText(bytes(name), ext(name));
      expect(recall(reference(name), text), text).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('sample.xls: numbers, decimals, booleans and dates, every sheet named (not only its shared strings)', async () => {
    const text = await extractText(bytes('sample.xls'), 'xls');
    expect(text).toContain('Sheet: Inventory\nItem\tCount\tWeight\tChecked\tReceived\nBolts\t4200\t0.25\tTRUE\t2026-01-31\nWashers\t17\t1.5\tFALSE');
    expect(text).toContain('Sheet: Summary\nQuarterly report');
  });

  for (const name of ['sample.pdf', 'sample-form.pdf']) {
    it(`${name}: the browser reader (pdf.js) reads at least 95% too, the same text as the gateway`, async () => {
      const pdfjs = (await import('pdfjs-dist/legacy/build/pdf.mjs')) as unknown as PdfJs;
      const { text } = await readPdf(pdfjs, bytes(name));
      expect(recall(reference(name), text)).toBeGreaterThanOrEqual(0.95);
      expect(text).toBe(await extractText(bytes(name), 'pdf'));
    });
  }

  it('sample-form.pdf: filled form fields and the note are read, check boxes are not text', async () => {
    const text = await extractText(bytes('sample-form.pdf'), 'pdf');
    expect(text).toContain('Margaret Hamilton Aerospace Ltd\nFull liability and property damage');
    expect(text).toContain('Checked by the underwriting desk on Monday');
    expect(text).not.toContain('Yes');
  });

  it('sample.rar, sample-unicode.rar (RAR 4) and sample-rar5.rar (libarchive\'s test archives, made with RAR): listed, text files read', async () => {
    expect(await extractText(bytes('sample.rar'), 'rar')).toBe('RAR archive: 3 files\n- test.txt (0.0 KB)\n- testlink (0.0 KB)\n- testdir/test.txt (0.0 KB)\n\n--- test.txt ---\ntest text document\n\n--- testdir/test.txt ---\ntest text document');
    expect(await extractText(bytes('sample-unicode.rar'), 'rar')).toContain('--- 表だよ/漢字長いファイル名long-filename-in-漢字.txt ---\nkanji');
    expect(await extractText(bytes('sample-rar5.rar'), 'rar')).toContain('RAR archive: 4 files\n- test1.bin (4.0 KB)');
  });

  it('sample-word6.doc: a Word 6 file is read, field codes dropped; a fast-saved one is refused in plain words', async () => {
    expect(await extractText(bytes('sample-word6.doc'), 'doc')).toContain('Page 1 of the café minutes');
    await expect(extractText(bytes('word6-fastsaved.doc'), 'doc')).rejects.toThrow(OLD_WORD_MESSAGE);
  });

  it('sample-xml-chapters.epub: chapters found through the manifest whatever their names, the same text as sample.epub', async () => {
    const text = await extractText(bytes('sample-xml-chapters.epub'), 'epub');
    expect(text).toBe(await extractText(bytes('sample.epub'), 'epub'));
    expect(text).toContain('Annual summary');
  });

  const lines = (text: string): string[] => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  for (const name of samples.filter((n) => ext(n) === 'docx')) {
    it(`${name}: the browser reader (mammoth) reads at least 95% too, the same text as the gateway, line for line`, async () => {
      const data = bytes(name);
      const { text } = await readDocx(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
      expect(recall(reference(name), text), text).toBeGreaterThanOrEqual(0.95);
      const gateway = await extractText(data, 'docx');
      // The same lines in the same order (a text box after the paragraph that anchors it on both paths), and the
      // same text.
      expect(lines(text)).toEqual(lines(gateway));
      expect(text).toBe(gateway);
    });
  }

  it('sample-altchunk.docx: the HTML altChunk (head, style and script dropped), the header and the footer on both paths', async () => {
    const data = bytes('sample-altchunk.docx');
    const gateway = await extractText(data, 'docx');
    const { text: browser } = await readDocx(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
    for (const text of [gateway, browser]) {
      expect(text).toContain('342\n\nImported minutes\nThe harbour board met on Tuesday & agreed the dredging schedule.\nTender opens in August\nWork starts in October');
      expect(text).toContain('Headers:\nConfidential header line\n\nFooters:\nPage footer text');
      expect(text).not.toMatch(/ignored|color: red/);
    }
  });

  it('sample-notes.docx: footnotes, endnotes, the text box (once) and content controls on both paths', async () => {
    const data = bytes('sample-notes.docx');
    const gateway = await extractText(data, 'docx');
    const { text: browser } = await readDocx(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
    for (const text of [gateway, browser]) {
      expect(text).toContain('Footnotes:\nInspection carried out by the volunteer coastguard team.');
      expect(text).toContain('Endnotes:\nReadings taken hourly from the upstream gauge station.');
      expect(text).toContain('Client reference: Harbour Trust grant HT-2291');
      expect(text).toContain('Approved by Oskar Lindqvist');
      expect(text.split('Sidebar: bring waterproof boots').length).toBe(2);
      // The text box (anchored at the end of the paragraph) right after it, before the content controls.
      expect(text).toContain('The bridge reopens in May.\n\nSidebar: bring waterproof boots and a spare lantern.\n\nClient reference: Harbour Trust grant HT-2291');
    }
  });
});

describe('document corpus: password-protected files', () => {
  const files = readdirSync(join(DIR, 'protected'));
  it('covers the formats real tools protect', () => {
    expect(files.map(ext).sort()).toEqual(['7z', '7z', 'doc', 'doc', 'docx', 'ods', 'odt', 'pdf', 'ppt', 'pptx', 'rar', 'rar', 'rar', 'xls', 'xls', 'xlsx', 'zip', 'zip']);
  });
  for (const name of files) {
    it(`${name}: refused with the one message, never read as text`, async () => {
      await expect(extractText(bytes(`protected/${name}`), ext(name))).rejects.toThrow(PROTECTED_MESSAGE);
    });
  }
  it('protected.ppt (Apache POI): refused by the Current User token alone, its EncryptedSummary stream taken out', async () => {
    // PowerPoint keeps the summary in the clear unless told to encrypt it too; the records of the PowerPoint
    // Document stream are ciphertext, headers included.
    const container = CFB.read(bytes('protected/protected.ppt'), { type: 'array' });
    CFB.utils.cfb_del(container, 'EncryptedSummary');
    const data = new Uint8Array(CFB.write(container, { type: 'array' }) as number[]);
    expect(CFB.find(CFB.read(data, { type: 'array' }), 'EncryptedSummary')).toBeNull();
    await expect(extractText(data, 'ppt')).rejects.toThrow(PROTECTED_MESSAGE);
  });
  it('protected.docx (agile encryption): the browser reader refuses it with the same message, before mammoth', async () => {
    const data = bytes('protected/protected.docx');
    await expect(readDocx(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer)).rejects.toThrow(PROTECTED_MESSAGE);
  });
  it('protected.pdf (a user password): the browser reader (pdf.js) refuses it with the same message', async () => {
    const pdfjs = (await import('pdfjs-dist/legacy/build/pdf.mjs')) as unknown as PdfJs;
    await expect(readPdf(pdfjs, bytes('protected/protected.pdf'))).rejects.toThrow(PROTECTED_MESSAGE);
  });
});

describe('document corpus: damaged files', () => {
  for (const name of readdirSync(join(DIR, 'damaged'))) {
    it(`${name}: a message naming the format, no reader internals`, async () => {
      await expect(extractText(bytes(`damaged/${name}`), ext(name))).rejects.toThrow(damagedMessage(ext(name)));
    });
  }
});
