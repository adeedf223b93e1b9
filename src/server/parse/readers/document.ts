/**
 * Text of a document on the gateway, by extension (spec 000 sections 5 and 7, POST /api/process-document). Runs
 * inside a worker thread (../pool.ts), never on the event loop. Libraries: officeparser (docx, pptx, xlsx, odt, odp,
 * ods, rtf, epub; its own zip-bomb limits set below; OCR off, nothing fetched; ./epub.ts for books whose chapters are not
 * named .xhtml), word-extractor (doc), pdf.js (./pdf.ts), and ./legacy.ts, ./archives.ts for ppt, xls, mobi, zip, rar and 7z. The client's text formats are read
 * here too when they are over 10 MB.
 */
import { OfficeParser, type OfficeParserConfig } from 'officeparser';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { documentForReaders, docxExtraText, docxParts, docxText } from '../../../protocol/docx-extras';
import { rarText, sevenZipText, zipText } from './archives';
import { epubNeedsSpineReader, epubText } from './epub';
import { mobiText, oldWordText, pptText, stripTags, xlsText } from './legacy';
import { ExtractError, MAX_TEXT_CHARS, readGuarded } from './extract';
import { pdfText } from './pdf';
import { OFFICE_TYPES, TEXT_TYPES } from './server-formats';
import { decodeTextLoose, looksLikeText } from './text';

export { damagedMessage, ExtractError, MAX_TEXT_CHARS } from './extract';

/** Inflated size and entry count officeparser may reach in a zip-based document. */
const OFFICE_LIMITS = { maxUncompressedBytes: 100 * 1024 * 1024, maxZipEntries: 5_000, maxTableCells: 2_000_000 };

export { serverReads } from './server-formats';

/**
 * A DOCX with its content controls unwrapped and its text boxes after their paragraphs (documentForReaders,
 * src/protocol/docx-extras.ts, as the browser gives mammoth), re-zipped; the same bytes when it has neither, or when
 * it declares more than OFFICE_LIMITS (officeparser then refuses it as before).
 */
function docxForReader(data: Uint8Array): Uint8Array {
  let total = 0;
  let entries = 0;
  unzipSync(data, {
    filter(f) {
      total += f.originalSize;
      entries++;
      return false;
    },
  });
  if (entries > OFFICE_LIMITS.maxZipEntries || total > OFFICE_LIMITS.maxUncompressedBytes) return data;
  const document = unzipSync(data, { filter: (f) => f.name === 'word/document.xml' })['word/document.xml'];
  const prepared = document ? documentForReaders(strFromU8(document)) : null;
  if (prepared === null) return data;
  const files = unzipSync(data);
  files['word/document.xml'] = strToU8(prepared);
  return zipSync(files, { level: 1 });
}

async function officeText(data: Uint8Array, ext: string, signal: AbortSignal): Promise<string> {
  const config: OfficeParserConfig = {
    ocr: false,
    extractAttachments: false,
    outputErrorToConsole: false,
    abortSignal: signal,
    fileType: ext as NonNullable<OfficeParserConfig['fileType']>,
    decompressionLimits: OFFICE_LIMITS,
  };
  const ast = await OfficeParser.parseOffice(Buffer.from(ext === 'docx' ? docxForReader(data) : data), config);
  if (ext === 'xlsx' || ext === 'ods') return sheetsText(ast.content);
  if (ext === 'docx') {
    // officeparser reads no altChunks, headers, footers, footnotes or endnotes (src/protocol/docx-extras.ts); it
    // has checked the archive's sizes against OFFICE_LIMITS by now.
    const extra = docxExtraText(docxParts((wanted) => unzipSync(data, { filter: (f) => wanted(f.name) && f.originalSize <= OFFICE_LIMITS.maxUncompressedBytes })));
    return docxText(ast.toText(), extra);
  }
  return ast.toText();
}

interface SheetNode {
  type: string;
  text?: string;
  children?: SheetNode[];
  metadata?: unknown;
}

/** A spreadsheet's AST as text: each sheet under its name, its rows' cells tab-separated (as the xls reader does). */
function sheetsText(content: readonly SheetNode[]): string {
  const out: string[] = [];
  for (const node of content) {
    if (node.type !== 'sheet') continue;
    const meta = node.metadata as { sheetName?: unknown } | undefined;
    const name = typeof meta?.sheetName === 'string' ? meta.sheetName : '';
    const rows = (node.children ?? [])
      .filter((r) => r.type === 'row')
      .map((r) => (r.children ?? []).map((c) => (c.text ?? '').trim()).filter((t) => t !== '').join('\t'))
      .filter((line) => line !== '');
    if (rows.length > 0) out.push(name ? `Sheet: ${name}\n${rows.join('\n')}` : rows.join('\n'));
  }
  return out.join('\n\n');
}

async function docText(data: Uint8Array): Promise<string> {
  const old = oldWordText(data);
  if (old && 'refused' in old) throw new ExtractError(old.refused);
  if (old) return old.text;
  const { default: WordExtractor } = await import('word-extractor');
  const doc = await new WordExtractor().extract(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  return `${doc.getBody()}\n${doc.getFootnotes()}`;
}

/** The document's text (trimmed, at most MAX_TEXT_CHARS). Throws ExtractError with a reason the user can read. */
export function extractText(data: Uint8Array, ext: string, signal: AbortSignal = new AbortController().signal): Promise<string> {
  return readGuarded(data, ext, async () => {
    // officeparser finds chapters by file name; a book whose spine names other files is read through its spine.
    if (ext === 'epub' && epubNeedsSpineReader(data)) return epubText(data, OFFICE_LIMITS.maxUncompressedBytes);
    if (OFFICE_TYPES.has(ext)) return officeText(data, ext, signal);
    if (ext === 'doc') return docText(data);
    if (ext === 'ppt') return pptText(data);
    if (ext === 'xls') return xlsText(data);
    if (ext === 'mobi') return mobiText(data, MAX_TEXT_CHARS);
    if (ext === 'zip') return zipText(data);
    if (ext === 'rar') return rarText(data);
    if (ext === '7z') return sevenZipText(data);
    if (ext === 'pdf') return pdfText(data);
    if (TEXT_TYPES.has(ext)) {
      if (!looksLikeText(data)) throw new ExtractError('the file is not text');
      const text = decodeTextLoose(data);
      return ext === 'html' || ext === 'htm' || ext === 'xml' ? stripTags(text) : text;
    }
    throw new ExtractError(`.${ext} files are not supported`);
  });
}
