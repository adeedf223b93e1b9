/**
 * Text of the binary formats no well-kept library reads in Node: PowerPoint 97 (.ppt), Excel 97 (.xls) and
 * Mobipocket (.mobi). Written by hand, each a few record types of a published format; the compound file
 * container of .ppt and .xls is read with cfb (SheetJS). Word 97 (.doc) is read with word-extractor
 * (./extract.ts). Every loop is bounded by the input's length.
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

/**
 * Excel 97-2003: the shared string table (SST, 0x00FC, continued by CONTINUE 0x003C records) of the 'Workbook'
 * stream holds the text of every cell with text. A string split across a CONTINUE starts again with a flags
 * byte (compressed 8-bit or UTF-16).
 */
export function xlsText(data: Uint8Array): string {
  let s: Uint8Array;
  try {
    s = stream(data, 'Workbook');
  } catch {
    s = stream(data, 'Book');
  }
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
  if (segments.length === 0) return '';
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
  return strings.filter((t) => t.trim() !== '').join('\n');
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
  if (type === 'BOOKMOBI' && r0 + 32 <= data.length && latin1.decode(data.subarray(r0 + 16, r0 + 20)) === 'MOBI') encoding = view.getUint32(r0 + 28, false);
  const decoder = encoding === 65001 ? new TextDecoder('utf-8') : latin1;
  let text = '';
  for (let r = 1; r <= textRecords && r < offsets.length && text.length < maxChars; r++) {
    const start = offsets[r] as number;
    const end = offsets[r + 1] ?? data.length;
    if (start >= end || end > data.length) break;
    const raw = data.subarray(start, end);
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
