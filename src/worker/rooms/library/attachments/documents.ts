/**
 * Document text read in the browser (spec 000 section 5): PDF with pdf.js (page by page, with progress, eval
 * off), DOCX with mammoth (the server is the fallback), and the text formats of the client list. Runs in the
 * file worker (./file-worker.ts), never on the main thread; the pdf.js module is passed in, so the same code runs
 * in Node tests with its legacy build.
 */
import { UPLOAD } from '../../../../protocol/attachments';
import { documentForReaders, docxExtraText, docxParts, docxText } from '../../../../protocol/docx-extras';
import { annotationText } from '../../../../protocol/pdf-annotations';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

/** The part of pdf.js this code uses (pdfjs-dist's getDocument). */
export interface PdfJs {
  getDocument(params: { data: Uint8Array; isEvalSupported: boolean; disableFontFace: boolean; useSystemFonts: boolean; stopAtErrors: boolean; enableXfa: boolean }): {
    promise: Promise<PdfDocument>;
    destroy(): Promise<void>;
  };
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: unknown[] }>; getAnnotations(): Promise<unknown[]>; cleanup(): boolean | void }>;
  destroy(): Promise<void>;
}

export interface ReadProgress {
  done: number;
  total: number;
}

export interface DocumentText {
  text: string;
  /** Pages read (PDF). */
  pages?: number;
}

export class NoTextError extends Error {
  override name = 'NoTextError';
}

/** A password-protected file (UPLOAD.protectedFile): refused here, not sent to the gateway, which would refuse it too. */
export class ProtectedDocumentError extends Error {
  override name = 'ProtectedDocumentError';
  constructor() {
    super(UPLOAD.protectedFile);
  }
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** 'EncryptedPackage' as a compound file's directory names its streams (UTF-16LE). */
const ENCRYPTED_PACKAGE = new Uint8Array([...'EncryptedPackage'].flatMap((c) => [c.charCodeAt(0), 0]));

/**
 * A DOCX saved with a password is not a zip: Office (and every tool that follows ECMA-376) wraps the encrypted zip in
 * a compound file beside its EncryptionInfo, in a stream named EncryptedPackage.
 */
export function isEncryptedOoxml(data: Uint8Array): boolean {
  if (data.length < 512 || !CFB_MAGIC.every((b, i) => data[i] === b)) return false;
  for (let at = data.indexOf(ENCRYPTED_PACKAGE[0] as number); at >= 0 && at + ENCRYPTED_PACKAGE.length <= data.length; at = data.indexOf(ENCRYPTED_PACKAGE[0] as number, at + 1)) {
    if (ENCRYPTED_PACKAGE.every((b, i) => data[at + i] === b)) return true;
  }
  return false;
}

/** The text of a PDF, page by page ('\n\n' between pages), reporting progress after each page. */
export async function readPdf(pdfjs: PdfJs, data: Uint8Array, options: { onProgress?: (p: ReadProgress) => void; signal?: AbortSignal } = {}): Promise<DocumentText> {
  // isEvalSupported false: pdf.js never compiles code from the file (fonts, functions); scripts in a PDF never run
  // here (pdf.js only runs them in its viewer's sandbox, which is not loaded).
  const task = pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, enableXfa: false });
  const abort = (): void => void task.destroy();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    let doc: PdfDocument;
    try {
      doc = await task.promise;
    } catch (error) {
      // A PDF that needs a password to open (an owner password alone does not stop reading).
      if (error instanceof Error && error.name === 'PasswordException') throw new ProtectedDocumentError();
      throw error;
    }
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      options.signal?.throwIfAborted();
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        const it = item as { str?: string; hasEOL?: boolean };
        if (typeof it.str !== 'string') continue;
        text += it.str;
        if (it.hasEOL) text += '\n';
      }
      // Filled form fields and notes are not in the content stream (src/protocol/pdf-annotations.ts).
      const notes = annotationText(await page.getAnnotations());
      pages.push(notes ? `${text.trim()}\n${notes}`.trim() : text.trim());
      page.cleanup();
      options.onProgress?.({ done: n, total: doc.numPages });
    }
    await doc.destroy();
    return { text: pages.join('\n\n').trim(), pages: doc.numPages };
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

/** Largest total a DOCX may declare once inflated (a zip bomb is refused before mammoth inflates it). Ours. */
export const DOCX_MAX_INFLATED = 200 * 1024 * 1024;
export const DOCX_MAX_ENTRIES = 5_000;

/**
 * Reads a zip's central directory only (no entry is inflated) and refuses one that declares more than `maxTotal`
 * bytes inflated, more than `maxEntries` entries, or an entry that expands more than 1000 times.
 */
export function checkZipBomb(data: Uint8Array, maxTotal: number = DOCX_MAX_INFLATED, maxEntries: number = DOCX_MAX_ENTRIES): void {
  let total = 0;
  let entries = 0;
  unzipSync(data, {
    filter(file) {
      entries++;
      total += file.originalSize;
      if (entries > maxEntries) throw new Error(`too many entries in the archive (over ${maxEntries})`);
      if (total > maxTotal) throw new Error('the archive expands to more than the size limit (a zip bomb?)');
      if (file.size > 0 && file.originalSize / file.size > 1000 && file.originalSize > 1024 * 1024) throw new Error('an entry expands over 1000 times (a zip bomb?)');
      return false;
    },
  });
}

/**
 * The DOCX mammoth reads: its word/document.xml as the gateway gives officeparser (documentForReaders: text boxes
 * after the paragraphs that anchor them, content controls unwrapped), re-zipped; the same bytes when nothing changes.
 * The archive's sizes have been checked (checkZipBomb).
 */
function docxForReader(bytes: Uint8Array): ArrayBuffer {
  const whole = (): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const document = unzipSync(bytes, { filter: (f) => f.name === 'word/document.xml' })['word/document.xml'];
  const prepared = document ? documentForReaders(strFromU8(document)) : null;
  if (prepared === null) return whole();
  const files = unzipSync(bytes);
  files['word/document.xml'] = strToU8(prepared);
  const zipped = zipSync(files, { level: 1 });
  return zipped.buffer.slice(zipped.byteOffset, zipped.byteOffset + zipped.byteLength) as ArrayBuffer;
}

/** The text of a DOCX with mammoth, the same as the gateway's (docxText: a paragraph per line, blank lines between, then the extras). */
export async function readDocx(data: ArrayBuffer): Promise<DocumentText> {
  if (isEncryptedOoxml(new Uint8Array(data))) throw new ProtectedDocumentError();
  checkZipBomb(new Uint8Array(data));
  const mammoth = (await import('mammoth')).default;
  const bytes = new Uint8Array(data);
  const input = docxForReader(bytes);
  // The browser build reads `arrayBuffer`, the Node build (tests, benchmarks) `buffer`; JSZip takes either.
  const result = await mammoth.extractRawText({ arrayBuffer: input, buffer: input } as unknown as { arrayBuffer: ArrayBuffer });
  // mammoth reads no altChunks, headers, footers, footnotes or endnotes (src/protocol/docx-extras.ts).
  const extra = docxExtraText(docxParts((wanted) => unzipSync(bytes, { filter: (f) => wanted(f.name) })));
  const text = docxText(result.value, extra);
  if (text === '') throw new NoTextError('No text content found in document');
  return { text };
}

/**
 * Text of a text-format file: UTF-8 (BOM optional), UTF-16 with a BOM, else windows-1252. A file with NUL bytes
 * in its first 8 KB is binary, not text: NoTextError.
 */
export function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) throw new NoTextError('No text content found in document');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

export function readTextFile(bytes: Uint8Array): DocumentText {
  const text = decodeText(bytes);
  if (text.trim() === '') throw new NoTextError('No text content found in document');
  return { text };
}
