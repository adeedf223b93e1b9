/**
 * Is an uploaded file encrypted or password-protected? Checked before a reader runs, so that an encrypted file is
 * refused with one plain message rather than read as ciphertext (an encrypted .xls's cells decode to noise) or
 * failing with a reader's internal error. Each check reads a few structures of the format's published layout:
 *  - Office 97-2003 (.doc, .xls, .ppt) and OOXML saved with a password (a compound file holding EncryptedPackage):
 *    the FIB's fEncrypted bit, the FILEPASS record; for .ppt the Current User stream's header token (MS-PPT
 *    2.3.2: 0xF3D1C4DF when encrypted), the CryptSession10Container, or the EncryptedSummary stream;
 *  - OpenDocument: `encryption-data` in META-INF/manifest.xml;
 *  - zip: an entry with the encrypted flag, or AES (method 99);
 *  - 7z with encrypted headers: an encoded header using AES;
 *  - Mobipocket: the encryption field of record 0 (DRM);
 * PDF, rar and 7z with encrypted files only are told by their readers (./document.ts, ./archives.ts), which throw ProtectedFileError.
 */
import * as CFB from 'cfb';
import { unzipSync } from 'fflate';
import { UPLOAD } from '../../../protocol/attachments';

/** The message for every protected file (issue 17), the browser's too. */
export const PROTECTED_MESSAGE = UPLOAD.protectedFile;

export class ProtectedFileError extends Error {
  override name = 'ProtectedFileError';
  constructor() {
    super(PROTECTED_MESSAGE);
  }
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export function isCompoundFile(data: Uint8Array): boolean {
  return data.length >= 512 && CFB_MAGIC.every((b, i) => data[i] === b);
}

function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && (data[2] === 0x03 || data[2] === 0x05) && (data[3] === 0x04 || data[3] === 0x06);
}

function streamOf(container: CFB.CFB$Container, name: string): Uint8Array | null {
  const entry = CFB.find(container, name);
  if (!entry || !entry.content) return null;
  return entry.content instanceof Uint8Array ? entry.content : Uint8Array.from(entry.content as ArrayLike<number>);
}

/** A BIFF stream (xls) with a FILEPASS record (0x002F) in its first substream (before the first EOF, 0x000A). */
function biffHasFilePass(s: Uint8Array): boolean {
  const view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  let i = 0;
  for (let n = 0; n < 10_000 && i + 4 <= s.length; n++) {
    const type = view.getUint16(i, true);
    const len = view.getUint16(i + 2, true);
    if (type === 0x002f) return true;
    if (type === 0x000a) return false;
    i += 4 + len;
  }
  return false;
}

/**
 * The Current User stream of a .ppt: a CurrentUserAtom whose headerToken (after the 8-byte record header and the
 * 4-byte size) is 0xF3D1C4DF when the document is encrypted (0xE391C05F when not). The records of an encrypted
 * PowerPoint Document stream are ciphertext, headers included, so a walk over them (below) stops at the first one.
 */
function pptCurrentUserEncrypted(s: Uint8Array): boolean {
  return s.length >= 16 && new DataView(s.buffer, s.byteOffset, s.byteLength).getUint32(12, true) === 0xf3d1c4df;
}

/** A PowerPoint Document stream holding a CryptSession10Container record (0x2F14). */
function pptEncrypted(s: Uint8Array): boolean {
  const view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  let i = 0;
  while (i + 8 <= s.length) {
    const verInst = view.getUint16(i, true);
    const type = view.getUint16(i + 2, true);
    const len = view.getUint32(i + 4, true);
    if (type === 0x2f14) return true;
    i = (verInst & 0xf) === 0xf ? i + 8 : i + 8 + len;
  }
  return false;
}

function compoundProtected(data: Uint8Array): boolean {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(data, { type: 'array' });
  } catch {
    return false; // damaged: the reader says so
  }
  if (streamOf(container, 'EncryptedPackage') !== null || streamOf(container, 'EncryptionInfo') !== null) return true;
  const word = streamOf(container, 'WordDocument');
  if (word !== null && word.length >= 12) {
    // FIB: wIdent 0xA5EC (Word 97+) or 0xA5DC (Word 6/95); the flags word at 0x0A, fEncrypted = 0x0100.
    const flags = (word[10] as number) | ((word[11] as number) << 8);
    if (flags & 0x0100) return true;
  }
  const book = streamOf(container, 'Workbook') ?? streamOf(container, 'Book');
  if (book !== null && biffHasFilePass(book)) return true;
  if (streamOf(container, 'EncryptedSummary') !== null) return true;
  const user = streamOf(container, 'Current User');
  if (user !== null && pptCurrentUserEncrypted(user)) return true;
  const ppt = streamOf(container, 'PowerPoint Document');
  if (ppt !== null && pptEncrypted(ppt)) return true;
  return false;
}

/** Zip central directory: any entry with the encrypted flag (bit 0) or the AES method (99). */
function zipEncrypted(data: Uint8Array): boolean {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const min = Math.max(0, data.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = data.length - 22; i >= min; i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) return false;
  const count = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  for (let n = 0; n < count && p + 46 <= data.length; n++) {
    if (view.getUint32(p, true) !== 0x02014b50) return false;
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    if (flags & 1 || method === 99) return true;
    p += 46 + view.getUint16(p + 28, true) + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
  }
  return false;
}

function odfEncrypted(data: Uint8Array): boolean {
  try {
    const files = unzipSync(data, { filter: (f) => f.name === 'META-INF/manifest.xml' && f.originalSize < 4 * 1024 * 1024 });
    const manifest = files['META-INF/manifest.xml'];
    return manifest !== undefined && new TextDecoder().decode(manifest).includes('encryption-data');
  } catch {
    return false;
  }
}

/** A 7z archive whose header is encrypted (-mhe): its next header is an encoded header (0x17) using AES (06F10701). */
function sevenZipHeaderEncrypted(data: Uint8Array): boolean {
  if (data.length < 32 || data[0] !== 0x37 || data[1] !== 0x7a || data[2] !== 0xbc || data[3] !== 0xaf) return false;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const offset = 32 + Number(view.getBigUint64(12, true));
  const size = Number(view.getBigUint64(20, true));
  if (offset >= data.length || data[offset] !== 0x17) return false;
  const header = data.subarray(offset, Math.min(data.length, offset + Math.min(size, 4096)));
  for (let i = 0; i + 4 <= header.length; i++) {
    if (header[i] === 0x06 && header[i + 1] === 0xf1 && header[i + 2] === 0x07 && header[i + 3] === 0x01) return true;
  }
  return false;
}

/** True when the file is encrypted or password-protected (see above), by its content and extension. */
export function isProtected(data: Uint8Array, ext: string): boolean {
  if (isCompoundFile(data)) return compoundProtected(data);
  if (isZip(data)) {
    if (zipEncrypted(data)) return true;
    if (ext === 'odt' || ext === 'ods' || ext === 'odp' || ext === 'odg') return odfEncrypted(data);
    return false;
  }
  if (sevenZipHeaderEncrypted(data)) return true;
  if (ext === 'mobi' && data.length >= 78) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const r0 = view.getUint32(78, false);
    if (r0 + 14 <= data.length) return view.getUint16(r0 + 12, false) !== 0;
  }
  return false;
}
