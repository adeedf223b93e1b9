/**
 * What every document reader shares (./document.ts, ./pdf.ts): the protection check before a reader runs, the
 * plain messages for a refused or damaged file, and the trimming of the text. Kept apart from ./document.ts so that
 * a parse thread can read PDFs (./pdf.ts) before it has loaded the other readers (../worker.ts).
 */
import { isProtected, ProtectedFileError } from './protection';

/** Largest text returned (characters): the model's context is far smaller; the engine cuts it further. */
export const MAX_TEXT_CHARS = 4_000_000;

export class ExtractError extends Error {
  override name = 'ExtractError';
}

const FORMAT_NAMES: Record<string, string> = {
  doc: 'Word', docx: 'Word', xls: 'Excel', xlsx: 'Excel', ppt: 'PowerPoint', pptx: 'PowerPoint', odt: 'OpenDocument text',
  ods: 'OpenDocument spreadsheet', odp: 'OpenDocument presentation', rtf: 'RTF', epub: 'EPUB', mobi: 'Mobipocket', pdf: 'PDF',
  zip: 'ZIP', rar: 'RAR', '7z': '7z',
};

/** The message for a file its reader could not make sense of: the format named, no reader internals. */
export function damagedMessage(ext: string): string {
  const name = FORMAT_NAMES[ext] ?? ext.toUpperCase();
  return `This ${name} file (.${ext}) looks damaged, so its text could not be read. Open it on your computer, save it again and attach the new copy.`;
}

/**
 * Runs a reader on the file: a protected file is refused before it runs, a reader's own failure becomes the
 * damaged-file message (ExtractError and ProtectedFileError pass as they are), and the text is trimmed to at most
 * MAX_TEXT_CHARS with its line ends made plain.
 */
export async function readGuarded(data: Uint8Array, ext: string, reader: () => Promise<string> | string): Promise<string> {
  let text: string;
  try {
    if (isProtected(data, ext)) throw new ProtectedFileError();
    text = await reader();
  } catch (error) {
    if (error instanceof ExtractError || error instanceof ProtectedFileError) throw error;
    throw new ExtractError(damagedMessage(ext));
  }
  return text.replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim().slice(0, MAX_TEXT_CHARS);
}
