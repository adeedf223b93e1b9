/**
 * The gateway's readers of the formats spec 000 section 5 sends to the server, each on a file built here: the
 * zip-based ones (xlsx, epub, odt) with fflate, 7z with 7z-wasm's own command line, and the binary ones written by
 * hand from their published layouts (xls: a BIFF8 shared string table in a compound file; mobi: a PalmDB with
 * PalmDOC text; rar: a RAR 4 archive with a stored file). The archive total-size cap is tested on its chooser.
 */
import { describe, expect, it } from 'vitest';
import * as CFB from 'cfb';
import { ExtractError, extractText } from '../../../src/server/parse/readers/document';
import { ARCHIVE_LIMITS, chooseTextEntries, zipText, type ArchiveEntry } from '../../../src/server/parse/readers/archives';
import { makeZip } from '../attachments/fixtures';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function xlsx(cells: readonly string[]): Uint8Array {
  const sst = cells.map((c) => `<si><t>${c}</t></si>`).join('');
  const row = cells.map((_, i) => `<c r="${String.fromCharCode(65 + i)}1" t="s"><v>${i}</v></c>`).join('');
  return makeZip({
    '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
    '_rels/.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    'xl/workbook.xml': '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    'xl/_rels/workbook.xml.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
    'xl/sharedStrings.xml': `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${cells.length}" uniqueCount="${cells.length}">${sst}</sst>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">${row}</row></sheetData></worksheet>`,
  });
}

function odt(paragraphs: readonly string[]): Uint8Array {
  const body = paragraphs.map((p) => `<text:p>${p}</text:p>`).join('');
  return makeZip({
    mimetype: 'application/vnd.oasis.opendocument.text',
    'META-INF/manifest.xml': '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    'content.xml': `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>${body}</office:text></office:body></office:document-content>`,
  });
}

function epub(chapters: readonly string[]): Uint8Array {
  const files: Record<string, string> = {
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    'OEBPS/content.opf': `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">test</dc:identifier><dc:title>Test book</dc:title><dc:language>en</dc:language></metadata><manifest>${chapters.map((_, i) => `<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`).join('')}</manifest><spine>${chapters.map((_, i) => `<itemref idref="c${i}"/>`).join('')}</spine></package>`,
  };
  chapters.forEach((c, i) => {
    files[`OEBPS/c${i}.xhtml`] = `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter ${i + 1}</title></head><body><p>${c}</p></body></html>`;
  });
  return makeZip(files);
}

/** Excel 97 (BIFF8): a compound file whose Workbook stream holds BOF, an SST of 8-bit strings, and EOF. */
function xls(strings: readonly string[]): Uint8Array {
  const record = (type: number, body: Uint8Array): number[] => [type & 0xff, type >> 8, body.length & 0xff, body.length >> 8, ...body];
  const sst: number[] = [];
  const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  sst.push(...u32(strings.length), ...u32(strings.length));
  for (const s of strings) sst.push(s.length & 0xff, s.length >> 8, 0, ...enc(s));
  const bof = new Uint8Array([0x00, 0x06, 0x05, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const workbook = Uint8Array.from([...record(0x0809, bof), ...record(0x00fc, Uint8Array.from(sst)), ...record(0x000a, new Uint8Array(0))]);
  const cfb = CFB.utils.cfb_new();
  CFB.utils.cfb_add(cfb, 'Workbook', workbook);
  return Uint8Array.from(CFB.write(cfb, { type: 'array' }) as unknown as number[]);
}

/** Mobipocket: a PalmDB 'BOOKMOBI' with record 0 (PalmDOC header, MOBI header, UTF-8) and one text record. */
function mobi(html: string, compression: 1 | 2, extraFlags = 0, trailing: readonly number[] = []): Uint8Array {
  const text = Uint8Array.from([...enc(html), ...trailing]);
  const r0 = new Uint8Array(extraFlags ? 0xf4 : 16 + 16);
  const v0 = new DataView(r0.buffer);
  v0.setUint16(0, compression);
  v0.setUint32(4, text.length);
  v0.setUint16(8, 1);
  v0.setUint16(10, 4096);
  r0.set(enc('MOBI'), 16);
  v0.setUint32(20, extraFlags ? 0xe8 : 16);
  v0.setUint32(24, 2);
  v0.setUint32(28, 65001);
  if (extraFlags) v0.setUint16(0xf2, extraFlags);
  const header = new Uint8Array(78 + 2 * 8 + 2);
  const vh = new DataView(header.buffer);
  header.set(enc('test-book'), 0);
  header.set(enc('BOOKMOBI'), 60);
  vh.setUint16(76, 2);
  vh.setUint32(78, header.length);
  vh.setUint32(86, header.length + r0.length);
  return Uint8Array.from([...header, ...r0, ...text]);
}

/**
 * Word 97: a compound file with a WordDocument stream (the FIB fields word-extractor reads: magic, the 1Table flag,
 * ccpText, fcClx/lcbClx; the text 8-bit at 0x400) and a 1Table stream holding the piece table of one piece.
 */
function doc(text: string): Uint8Array {
  const bytes = enc(text);
  const word = new Uint8Array(0x400 + bytes.length);
  const w = new DataView(word.buffer);
  w.setUint16(0x00, 0xa5ec, true);
  w.setUint16(0x02, 0x00c1, true); // nFib 193: Word 97 and later (Word 6/95 files have 101 to 104)
  w.setUint16(0x0a, 0x0200, true);
  w.setUint32(0x4c, bytes.length, true);
  w.setUint32(0x1a2, 0, true);
  w.setUint32(0x1a6, 21, true);
  word.set(bytes, 0x400);
  const table = new Uint8Array(21);
  const t = new DataView(table.buffer);
  table[0] = 0x02;
  t.setUint32(1, 16, true);
  t.setUint32(5, 0, true);
  t.setUint32(9, bytes.length, true);
  // The piece descriptor: 2 bytes of flags, then fc with bit 30 set (8-bit text at fc / 2), then prm.
  t.setUint32(15, ((0x400 * 2) | 0x40000000) >>> 0, true);
  const cfb = CFB.utils.cfb_new();
  CFB.utils.cfb_add(cfb, 'WordDocument', word);
  CFB.utils.cfb_add(cfb, '1Table', table);
  return Uint8Array.from(CFB.write(cfb, { type: 'array' }) as unknown as number[]);
}

/** CRC-32 (IEEE), for the RAR headers and data. */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** A RAR 4 archive of stored (uncompressed) files: marker, archive header, a file header and data per file. */
function rar(files: Record<string, string>): Uint8Array {
  const out: number[] = [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00];
  const block = (type: number, flags: number, rest: number[]): number[] => {
    const size = 7 + rest.length;
    const body = [type, flags & 0xff, flags >> 8, size & 0xff, size >> 8, ...rest];
    const crc = crc32(Uint8Array.from(body)) & 0xffff;
    return [crc & 0xff, crc >> 8, ...body];
  };
  const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  out.push(...block(0x73, 0, [0, 0, 0, 0, 0, 0]));
  for (const [name, content] of Object.entries(files)) {
    const data = enc(content);
    const nameBytes = [...enc(name)];
    // PACK_SIZE, UNP_SIZE, HOST_OS (2 = Windows), FILE_CRC, FTIME, UNP_VER (20), METHOD (0x30 = store), NAME_SIZE, ATTR.
    const rest = [...u32(data.length), ...u32(data.length), 2, ...u32(crc32(data)), ...u32(0x5a210000), 20, 0x30, nameBytes.length & 0xff, nameBytes.length >> 8, ...u32(0x20), ...nameBytes];
    out.push(...block(0x74, 0x8000, rest), ...data);
  }
  out.push(...block(0x7b, 0x4000, []));
  return Uint8Array.from(out);
}

async function sevenZip(files: Record<string, string>): Promise<Uint8Array> {
  const factory = (await import('7z-wasm')).default;
  const sz = await factory({ print: () => undefined, printErr: () => undefined });
  sz.FS.mkdir('/in');
  for (const [name, content] of Object.entries(files)) sz.FS.writeFile(`/in/${name}`, content);
  sz.FS.chdir('/in');
  sz.callMain(['a', '-t7z', '/out.7z', ...Object.keys(files)]);
  return sz.FS.readFile('/out.7z');
}

describe('the gateway reads the formats the browser sends it (spec 000 section 5)', () => {
  it('xlsx: the text of its cells', async () => {
    const text = await extractText(xlsx(['Region', 'Revenue north', 'Q3 total']), 'xlsx');
    for (const cell of ['Region', 'Revenue north', 'Q3 total']) expect(text).toContain(cell);
  });

  it('odt: its paragraphs in order', async () => {
    const text = await extractText(odt(['Minutes of the meeting', 'Decided: ship on Friday']), 'odt');
    expect(text).toContain('Minutes of the meeting');
    expect(text.indexOf('Minutes of the meeting')).toBeLessThan(text.indexOf('Decided: ship on Friday'));
  });

  it('epub: every chapter of the spine', async () => {
    const text = await extractText(epub(['It was a dark and stormy night.', 'The end came quietly.']), 'epub');
    expect(text).toContain('It was a dark and stormy night.');
    expect(text).toContain('The end came quietly.');
  });

  it('doc: the body text of its piece table', async () => {
    expect(await extractText(doc('Dear reader,\rThis letter is from 1997.\r'), 'doc')).toBe('Dear reader,\nThis letter is from 1997.');
  });

  it('xls: the shared strings of the workbook', async () => {
    expect(await extractText(xls(['Name', 'Ada Lovelace', '  ']), 'xls')).toBe('Name\nAda Lovelace');
  });

  it('mobi: the text records, tags removed, stored or PalmDOC-compressed', async () => {
    for (const compression of [1, 2] as const) {
      expect(await extractText(mobi('<html><body><p>Call me Ishmael.</p></body></html>', compression), 'mobi')).toContain('Call me Ishmael.');
    }
  });

  it('mobi: the trailing entries of extra_data_flags are dropped, not read as text or decompressed', async () => {
    // Bit 1: one trailing entry (two bytes and its backward size byte, 0x83 = 3); bit 0: a multibyte overlap of one byte.
    for (const compression of [1, 2] as const) {
      const book = mobi('<p>Call me Ishmael.</p>', compression, 0b11, [0x00, 0x41, 0x42, 0x83]);
      expect(await extractText(book, 'mobi')).toBe('Call me Ishmael.');
    }
  });

  it('7z: the listing, then its text files', async () => {
    const text = await extractText(await sevenZip({ 'readme.md': '# Read me first', 'data.csv': 'a,b\n1,2' }), '7z');
    expect(text).toContain('7z archive: 2 files');
    expect(text).toContain('--- readme.md ---\n# Read me first');
    expect(text).toContain('--- data.csv ---\na,b\n1,2');
  });

  it('rar: the listing, then its text files', async () => {
    const text = await extractText(rar({ 'notes.txt': 'Inside the rar.' }), 'rar');
    expect(text).toContain('RAR archive: 1 file');
    expect(text).toContain('--- notes.txt ---\nInside the rar.');
  });

  it('a damaged file of each kind fails with a reason, never a crash', async () => {
    for (const ext of ['xlsx', 'odt', 'epub', 'xls', 'mobi', '7z', 'rar', 'doc']) {
      await expect(extractText(enc('not really a document'), ext)).rejects.toBeInstanceOf(ExtractError);
    }
  });
});

describe('the archive total-size cap', () => {
  const entry = (name: string, size: number): ArchiveEntry => ({ name, size, directory: false });

  it('takes text files in archive order while they fit in maxTextBytes; a file over maxFileBytes is never taken', () => {
    const limits = { ...ARCHIVE_LIMITS, maxTextBytes: 100, maxFileBytes: 60 };
    const chosen = chooseTextEntries([entry('a.txt', 40), entry('big.txt', 61), entry('b.md', 50), entry('c.csv', 10), entry('d.txt', 1), entry('e.png', 5)], limits);
    // 40 + 50 = 90; 'c.csv' (10) makes exactly 100; 'd.txt' would pass it; the image is no text.
    expect([...chosen]).toEqual(['a.txt', 'b.md', 'c.csv']);
  });

  it('the default cap is 4 MB of text: a zip with five 1 MB text files extracts four and says one was left', () => {
    const mb = 'x'.repeat(1024 * 1024);
    const text = zipText(makeZip({ '1.txt': mb, '2.txt': mb, '3.txt': mb, '4.txt': mb, '5.txt': mb }));
    expect(text).toContain('ZIP archive: 5 files');
    expect(text.match(/^--- \d\.txt ---$/gm)).toEqual(['--- 1.txt ---', '--- 2.txt ---', '--- 3.txt ---', '--- 4.txt ---']);
    expect(text).toContain('(1 text file not extracted: over the size limit)');
  });
});
