/**
 * Text of the binary formats no well-kept library reads in Node: PowerPoint 97 (.ppt), Excel 97 (.xls), Mobipocket
 * (.mobi) and Word 6/95 (.doc) saved in full. Written by hand, each a few record types of a published format; the
 * compound file container of .ppt, .xls and .doc is read with cfb (SheetJS). Word 97 (.doc) is read with
 * word-extractor (./document.ts). Every loop is bounded by the input's length.
 */
import * as CFB from 'cfb';

function stream(data: Uint8Array, name: string): Uint8Array {
  const container = CFB.read(data, { type: 'array' });
  const entry = CFB.find(container, name);
  if (!entry || !entry.content) throw new Error(`no ${name} stream: not a valid file`);
  return entry.content instanceof Uint8Array ? entry.content : Uint8Array.from(entry.content as ArrayLike<number>);
}

const utf16 = new TextDecoder('utf-16le');
const latin1 = new TextDecoder('windows-1252');

/** Word 6 and Word 95 files that cannot be read here: those saved with "Fast Save", and older ones. */
export const OLD_WORD_MESSAGE = 'This is a Word file from Word 95 or earlier that cannot be read here. Open it in Word or LibreOffice, save it as .docx and attach the new copy.';

/**
 * Word 6 and Word 95 (.doc with a FIB whose nFib is 101 to 104; Word 97 and later have 105 and up and are read by
 * word-extractor): null for a newer file. A file saved in full keeps its text in one run of 8-bit characters
 * (windows-1252) from fcMin to fcMac of the WordDocument stream (main text, then footnotes and headers); field
 * codes (between 0x13 and 0x14) are dropped and their results kept. A fast-saved file (fComplex) keeps its text in
 * pieces listed in a piece table, and a file older than Word 6 has another layout: both get OLD_WORD_MESSAGE.
 */
export function oldWordText(data: Uint8Array): { text: string } | { refused: string } | null {
  const word = stream(data, 'WordDocument');
  if (word.length < 0x20) throw new Error('WordDocument stream too short');
  const view = new DataView(word.buffer, word.byteOffset, word.byteLength);
  const nFib = view.getUint16(2, true);
  if (nFib >= 105) return null;
  const complex = (view.getUint16(10, true) & 0x0004) !== 0;
  if (nFib < 101 || complex) return { refused: OLD_WORD_MESSAGE };
  const fcMin = view.getUint32(0x18, true);
  const fcMac = Math.min(view.getUint32(0x1c, true), word.length);
  if (fcMin >= fcMac) throw new Error('no text range');
  const text = latin1.decode(word.subarray(fcMin, fcMac));
  let out = '';
  let fieldDepth = 0;
  /** Per open field: whether its result (after 0x14) is being read. */
  const inResult: boolean[] = [];
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c === 0x13) {
      fieldDepth++;
      inResult.push(false);
    } else if (c === 0x14 && fieldDepth > 0) inResult[inResult.length - 1] = true;
    else if (c === 0x15 && fieldDepth > 0) {
      fieldDepth--;
      inResult.pop();
    } else if (fieldDepth > 0 && !inResult[inResult.length - 1]) continue;
    else if (c === 0x0d || c === 0x0b || c === 0x0c) out += '\n';
    else if (c === 0x07) out += '\t';
    else if (c === 0x1e) out += '-';
    else if (c >= 0x20 || c === 0x09) out += ch;
  }
  return { text: out.replace(/\t\n/g, '\n') };
}

/**
 * PowerPoint 97-2003: the 'PowerPoint Document' stream is a tree of records (8-byte header: version/instance,
 * type, length). Containers (version 0xF) are walked into; TextCharsAtom (0x0FA0, UTF-16) and TextBytesAtom
 * (0x0FA8, 8-bit) hold the slides' text, in order.
 */
export function pptText(data: Uint8Array): string {
  const s = stream(data, 'PowerPoint Document');
  const view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  const out: string[] = [];
  let i = 0;
  while (i + 8 <= s.length) {
    const verInst = view.getUint16(i, true);
    const type = view.getUint16(i + 2, true);
    const len = view.getUint32(i + 4, true);
    const body = i + 8;
    if ((verInst & 0xf) === 0xf) {
      i = body; // a container: its children follow
      continue;
    }
    const end = Math.min(s.length, body + len);
    if (type === 0x0fa0) out.push(utf16.decode(s.subarray(body, end)));
    else if (type === 0x0fa8) out.push(latin1.decode(s.subarray(body, end)));
    i = body + len;
  }
  return out.map((t) => t.replace(/\r/g, '\n').trim()).filter((t) => t !== '').join('\n\n');
}

/** The shared string table (SST, 0x00FC, continued by CONTINUE 0x003C records) of a BIFF8 stream, in order. */
function sharedStrings(s: Uint8Array): string[] {
  const view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  // Collect the SST record and its CONTINUE records as separate segments.
  const segments: Uint8Array[] = [];
  let i = 0;
  let inSst = false;
  while (i + 4 <= s.length) {
    const type = view.getUint16(i, true);
    const len = view.getUint16(i + 2, true);
    const body = s.subarray(i + 4, Math.min(s.length, i + 4 + len));
    if (type === 0x00fc) {
      inSst = true;
      segments.push(body);
    } else if (type === 0x003c && inSst) segments.push(body);
    else if (inSst) break;
    i += 4 + len;
  }
  if (segments.length === 0) return [];
  let seg = 0;
  let pos = 8; // cstTotal, cstUnique
  const cur = (): Uint8Array => segments[seg] as Uint8Array;
  const need = (n: number): boolean => {
    while (pos + n > cur().length) {
      if (seg + 1 >= segments.length) return false;
      if (pos < cur().length) return false; // a header split across records: give up on the rest
      seg++;
      pos = 0;
    }
    return true;
  };
  const strings: string[] = [];
  const u16 = (): number => (cur()[pos] as number) | ((cur()[pos + 1] as number) << 8);
  while (need(3)) {
    const count = u16();
    pos += 2;
    let flags = cur()[pos++] as number;
    let extra = 0;
    if (flags & 0x08) {
      if (!need(2)) break;
      extra += u16() * 4;
      pos += 2;
    }
    if (flags & 0x04) {
      if (!need(4)) break;
      const b = cur();
      extra += ((b[pos] as number) | ((b[pos + 1] as number) << 8) | ((b[pos + 2] as number) << 16) | ((b[pos + 3] as number) << 24)) >>> 0;
      pos += 4;
    }
    let text = '';
    let left = count;
    while (left > 0) {
      if (pos >= cur().length) {
        if (seg + 1 >= segments.length) break;
        seg++;
        pos = 0;
        flags = cur()[pos++] as number; // a CONTINUE restarts the character width
      }
      const wide = (flags & 0x01) === 1;
      const avail = Math.floor((cur().length - pos) / (wide ? 2 : 1));
      const take = Math.min(left, avail);
      const bytes = cur().subarray(pos, pos + take * (wide ? 2 : 1));
      text += wide ? utf16.decode(bytes) : latin1.decode(bytes);
      pos += bytes.length;
      left -= take;
      if (take === 0) break;
    }
    strings.push(text);
    // Skip rich-text runs and extended data, which may cross records too.
    while (extra > 0) {
      const step = Math.min(extra, cur().length - pos);
      pos += step;
      extra -= step;
      if (extra > 0) {
        if (seg + 1 >= segments.length) break;
        seg++;
        pos = 0;
      }
    }
  }
  return strings;
}

/** Built-in number formats that show a date or a time (ECMA-376 / BIFF ifmt). */
const DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** A custom number format shows a date or time: d, m, y, h or s outside quotes, brackets and escapes. */
function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\[[^\]]*\]|\\./g, '');
  return /[dmyhs]/i.test(bare) && !/[0#?]/.test(bare.replace(/\.0+/g, ''));
}

/** An Excel serial date (days since 1899-12-30, or 1904-01-01) as the sheet would show it: a date, and its time. */
function serialDate(n: number, date1904: boolean): string {
  const d = new Date(Math.round((n + (date1904 ? 1462 : 0) - 25569) * 86_400_000));
  if (!Number.isFinite(d.getTime())) return generalNumber(n);
  const iso = d.toISOString();
  if (n < 1) return iso.slice(11, 19);
  return Math.abs(n - Math.floor(n)) < 1e-9 ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** A number as a sheet shows it in General format: up to 15 significant digits, no float noise. */
function generalNumber(n: number): string {
  return String(Number(n.toPrecision(15)));
}

/** An RK value: a 30-bit integer or the top of an IEEE double, optionally divided by 100. */
function rkValue(rk: number): number {
  let v: number;
  if (rk & 0x02) v = rk >> 2;
  else {
    const buf = new DataView(new ArrayBuffer(8));
    buf.setUint32(4, rk & 0xfffffffc, true);
    v = buf.getFloat64(0, true);
  }
  return rk & 0x01 ? v / 100 : v;
}

const BOOL_ERRORS: Record<number, string> = { 0x00: '#NULL!', 0x07: '#DIV/0!', 0x0f: '#VALUE!', 0x17: '#REF!', 0x1d: '#NAME?', 0x24: '#NUM!', 0x2a: '#N/A' };

/**
 * Excel 2 to 2003 (BIFF2 to BIFF8; Excel 5/95 included): every sheet's cells of every type, row by row (cells
 * tab-separated), each sheet under its name. Text from the shared string table (BIFF8) or inline labels (BIFF2-5);
 * numbers (NUMBER, RK, MULRK, INTEGER) in General format, or as dates when their cell format is a date; booleans
 * and errors; formula results (cached values, and STRING for text results). BIFF5/8 live in a compound file
 * ('Workbook' or 'Book' stream); BIFF2-4 files are the bare stream.
 */
export function xlsText(data: Uint8Array): string {
  let s: Uint8Array;
  if (data.length >= 8 && data[0] === 0xd0 && data[1] === 0xcf) {
    try {
      s = stream(data, 'Workbook');
    } catch {
      s = stream(data, 'Book');
    }
  } else s = data;
  const view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  const first = s.length >= 4 ? view.getUint16(0, true) : 0;
  if (first !== 0x0809 && first !== 0x0409 && first !== 0x0209 && first !== 0x0009) throw new Error('not an Excel file');
  const sst = sharedStrings(s);
  let biff = first === 0x0009 ? 2 : first === 0x0209 ? 3 : first === 0x0409 ? 4 : 8;
  const formats = new Map<number, string>();
  const xfFormat: number[] = [];
  const sheetNames: string[] = [];
  let date1904 = false;
  type Cell = { row: number; col: number; text: string };
  const sheets: { name: string; cells: Cell[] }[] = [];
  let cells: Cell[] | null = null;
  let depth = 0;
  let pendingString: { row: number; col: number } | null = null;
  /** A BIFF string: length (8- or 16-bit), then (BIFF8) a flags byte and 8-bit or UTF-16 characters. */
  const biffString = (at: number, end: number, lenBytes: 1 | 2): string => {
    if (at + lenBytes > end) return '';
    const n = lenBytes === 1 ? (s[at] as number) : view.getUint16(at, true);
    let p = at + lenBytes;
    if (biff === 8) {
      const flags = s[p++] as number;
      if (flags & 0x08) p += 2;
      if (flags & 0x04) p += 4;
      const wide = (flags & 1) === 1;
      return (wide ? utf16 : latin1).decode(s.subarray(p, Math.min(end, p + n * (wide ? 2 : 1))));
    }
    return latin1.decode(s.subarray(p, Math.min(end, p + n)));
  };
  const numberText = (xf: number, n: number): string => {
    const f = xfFormat[xf];
    if (f !== undefined && (DATE_FORMATS.has(f) || isDateFormat(formats.get(f) ?? ''))) return serialDate(n, date1904);
    return generalNumber(n);
  };
  const add = (row: number, col: number, text: string): void => {
    if (cells && text !== '') cells.push({ row, col, text });
  };
  let i = 0;
  while (i + 4 <= s.length) {
    const type = view.getUint16(i, true);
    const len = view.getUint16(i + 2, true);
    const b = i + 4;
    const end = Math.min(s.length, b + len);
    i = b + len;
    const has = (n: number): boolean => b + n <= end;
    switch (type) {
      case 0x0809:
      case 0x0409:
      case 0x0209:
      case 0x0009: {
        if (type === 0x0809 && has(2)) biff = view.getUint16(b, true) === 0x0600 ? 8 : 5;
        depth++;
        const kind = type === 0x0809 && has(4) ? view.getUint16(b + 2, true) : 0x10;
        // Worksheets (and the single sheet of a BIFF2-4 file); the workbook globals hold no cells.
        if (kind !== 0x0005) {
          cells = [];
          sheets.push({ name: sheetNames[sheets.length] ?? (biff < 5 ? '' : `Sheet${sheets.length + 1}`), cells });
        }
        break;
      }
      case 0x000a: // EOF
        depth--;
        cells = null;
        if (depth < 0) depth = 0;
        break;
      case 0x0085: // BOUNDSHEET
        if (has(7)) sheetNames.push(biffString(b + 6, end, 1));
        break;
      case 0x0022: // DATEMODE
        if (has(2)) date1904 = view.getUint16(b, true) === 1;
        break;
      case 0x041e: // FORMAT (BIFF4+)
      case 0x001e: // FORMAT (BIFF2-3)
        if (biff >= 5 && has(4)) formats.set(view.getUint16(b, true), biffString(b + 2, end, biff === 8 ? 2 : 1));
        break;
      case 0x00e0: // XF (BIFF5/8)
        if (has(4)) xfFormat.push(view.getUint16(b + 2, true));
        break;
      case 0x0443: // XF (BIFF4)
      case 0x0243: // XF (BIFF3)
        if (has(2)) xfFormat.push(s[b + 1] as number);
        break;
      case 0x00fd: // LABELSST
        if (has(10)) add(view.getUint16(b, true), view.getUint16(b + 2, true), sst[view.getUint32(b + 6, true)] ?? '');
        break;
      case 0x0204: // LABEL (BIFF3+)
      case 0x00d6: // RSTRING
        if (has(8)) add(view.getUint16(b, true), view.getUint16(b + 2, true), biffString(b + 6, end, 2));
        break;
      case 0x0004: // LABEL (BIFF2)
        if (has(8)) add(view.getUint16(b, true), view.getUint16(b + 2, true), latin1.decode(s.subarray(b + 8, Math.min(end, b + 8 + (s[b + 7] as number)))));
        break;
      case 0x0203: // NUMBER
        if (has(14)) add(view.getUint16(b, true), view.getUint16(b + 2, true), numberText(view.getUint16(b + 4, true), view.getFloat64(b + 6, true)));
        break;
      case 0x0003: // NUMBER (BIFF2)
        if (has(15)) add(view.getUint16(b, true), view.getUint16(b + 2, true), generalNumber(view.getFloat64(b + 7, true)));
        break;
      case 0x0002: // INTEGER (BIFF2)
        if (has(9)) add(view.getUint16(b, true), view.getUint16(b + 2, true), String(view.getUint16(b + 7, true)));
        break;
      case 0x027e: // RK
        if (has(10)) add(view.getUint16(b, true), view.getUint16(b + 2, true), numberText(view.getUint16(b + 4, true), rkValue(view.getInt32(b + 6, true))));
        break;
      case 0x00bd: {
        // MULRK: row, first column, (xf, rk) pairs, last column
        if (!has(6)) break;
        const row = view.getUint16(b, true);
        let col = view.getUint16(b + 2, true);
        for (let p = b + 4; p + 6 <= end - 2; p += 6) add(row, col++, numberText(view.getUint16(p, true), rkValue(view.getInt32(p + 2, true))));
        break;
      }
      case 0x0205: // BOOLERR
        if (has(8)) {
          const v = s[b + 6] as number;
          add(view.getUint16(b, true), view.getUint16(b + 2, true), s[b + 7] ? (BOOL_ERRORS[v] ?? '#ERROR') : v ? 'TRUE' : 'FALSE');
        }
        break;
      case 0x0006: // FORMULA (BIFF5/8)
      case 0x0206: // FORMULA (BIFF3)
      case 0x0406: {
        // FORMULA (BIFF4): row, col, xf, then the cached result (8 bytes)
        if (!has(14)) break;
        const row = view.getUint16(b, true);
        const col = view.getUint16(b + 2, true);
        if (view.getUint16(b + 12, true) === 0xffff) {
          const kind = s[b + 6] as number;
          if (kind === 0) pendingString = { row, col };
          else if (kind === 1) add(row, col, s[b + 8] ? 'TRUE' : 'FALSE');
          else if (kind === 2) add(row, col, BOOL_ERRORS[s[b + 8] as number] ?? '#ERROR');
        } else add(row, col, numberText(view.getUint16(b + 4, true), view.getFloat64(b + 6, true)));
        break;
      }
      case 0x0207: // STRING: the text result of the formula before it
        if (pendingString && has(2)) add(pendingString.row, pendingString.col, biffString(b, end, biff === 8 ? 2 : biff === 2 ? 1 : 2));
        pendingString = null;
        break;
      default:
        break;
    }
  }
  const out: string[] = [];
  for (const sheet of sheets) {
    if (sheet.cells.length === 0) continue;
    sheet.cells.sort((a, c) => a.row - c.row || a.col - c.col);
    const lines: string[] = [];
    let row = -1;
    let line: string[] = [];
    for (const c of sheet.cells) {
      if (c.row !== row) {
        if (line.length > 0) lines.push(line.join('\t'));
        line = [];
        row = c.row;
      }
      line.push(c.text);
    }
    if (line.length > 0) lines.push(line.join('\t'));
    out.push(sheet.name ? `Sheet: ${sheet.name}\n${lines.join('\n')}` : lines.join('\n'));
  }
  // No cell record at all (a damaged or unusual writer) but a string table: its strings are the text there is.
  if (out.length === 0) return sst.filter((t) => t.trim() !== '').join('\n');
  return out.join('\n\n');
}

/** PalmDOC (LZ77-style) decompression of one Mobipocket text record. */
export function palmDocDecompress(input: Uint8Array, maxOut: number): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < input.length && out.length < maxOut) {
    const c = input[i++] as number;
    if (c === 0 || (c >= 0x09 && c <= 0x7f)) out.push(c);
    else if (c >= 0x01 && c <= 0x08) for (let k = 0; k < c && i < input.length; k++) out.push(input[i++] as number);
    else if (c >= 0xc0) out.push(0x20, c ^ 0x80);
    else {
      const next = input[i++] ?? 0;
      const pair = (c << 8) | next;
      const distance = (pair >> 3) & 0x7ff;
      const length = (pair & 0x7) + 3;
      if (distance === 0 || distance > out.length) throw new Error('corrupt Mobipocket text');
      for (let k = 0; k < length; k++) out.push(out[out.length - distance] as number);
    }
  }
  return Uint8Array.from(out);
}

/**
 * Bytes of the trailing entries at the end of a Mobipocket text record (extra_data_flags): one entry per flag bit
 * above bit 0, each ending in its size written backwards as a variable-width number; bit 0 adds the multibyte
 * overlap, whose size is in the low two bits of the byte before. They are not text and must not reach the
 * decompressor.
 */
export function trailingSize(record: Uint8Array, flags: number): number {
  let size = 0;
  for (let bits = flags >> 1; bits !== 0; bits >>= 1) {
    if ((bits & 1) === 0) continue;
    let end = record.length - size;
    let value = 0;
    let shift = 0;
    while (end > 0) {
      const v = record[end - 1] as number;
      value |= (v & 0x7f) << shift;
      shift += 7;
      end--;
      if (v & 0x80 || shift >= 28) break;
    }
    size += value;
    if (size > record.length) return record.length;
  }
  if (flags & 1 && record.length - size - 1 >= 0) size += ((record[record.length - size - 1] as number) & 0x3) + 1;
  return Math.min(size, record.length);
}

/** Mobipocket (.mobi, PalmDOC compression or none): the text records after record 0, HTML tags removed. */
export function mobiText(data: Uint8Array, maxChars: number): string {
  if (data.length < 78) throw new Error('not a Mobipocket file');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const type = latin1.decode(data.subarray(60, 68));
  if (type !== 'BOOKMOBI' && type !== 'TEXtREAd') throw new Error('not a Mobipocket file');
  const records = view.getUint16(76, false);
  const offsets: number[] = [];
  for (let r = 0; r < records && 78 + r * 8 + 4 <= data.length; r++) offsets.push(view.getUint32(78 + r * 8, false));
  const r0 = offsets[0] ?? 0;
  if (r0 + 16 > data.length) throw new Error('not a Mobipocket file');
  const compression = view.getUint16(r0, false);
  const textRecords = view.getUint16(r0 + 8, false);
  if (compression !== 1 && compression !== 2) throw new Error('this Mobipocket compression (HUFF/CDIC) is not supported');
  let encoding = 1252;
  let extraFlags = 0;
  if (type === 'BOOKMOBI' && r0 + 32 <= data.length && latin1.decode(data.subarray(r0 + 16, r0 + 20)) === 'MOBI') {
    encoding = view.getUint32(r0 + 28, false);
    // extra_data_flags (MOBI header of 0xE4 bytes or more): trailing entries after each text record's data.
    const headerLength = view.getUint32(r0 + 20, false);
    if (headerLength >= 0xe4 && r0 + 0xf4 <= data.length) extraFlags = view.getUint16(r0 + 0xf2, false);
  }
  const decoder = encoding === 65001 ? new TextDecoder('utf-8') : latin1;
  let text = '';
  for (let r = 1; r <= textRecords && r < offsets.length && text.length < maxChars; r++) {
    const start = offsets[r] as number;
    const end = offsets[r + 1] ?? data.length;
    if (start >= end || end > data.length) break;
    const raw = data.subarray(start, end - trailingSize(data.subarray(start, end), extraFlags));
    const bytes = compression === 2 ? palmDocDecompress(raw, 8192) : raw;
    text += decoder.decode(bytes);
  }
  return stripTags(text).slice(0, maxChars);
}

/** Markup to plain text in one pass by character (no regex that could backtrack). */
export function stripTags(html: string): string {
  let out = '';
  let inTag = false;
  for (let i = 0; i < html.length; i++) {
    const ch = html[i] as string;
    if (inTag) {
      if (ch === '>') {
        inTag = false;
        out += ' ';
      }
    } else if (ch === '<') inTag = true;
    else out += ch;
  }
  return out
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}
