/**
 * The file analyser of spec 000 section 5, pure: what kind of file this is and where it must be read.
 *
 * - rejects unknown formats (and, ours, empty files);
 * - needs server processing for files over 10 MB, for formats not handled on the client, and for the complex
 *   formats (doc, docx, xls, xlsx, ppt, pptx, epub, mobi, zip, rar, 7z);
 * - client-handled formats: the spec's list (CLIENT_FORMATS);
 * - estimated processing time 1, or 1.5 for large files (over 10 MB).
 *
 * A rejection's reasons make the notice 'Unsupported file: {reasons}' (UPLOAD.unsupportedFile).
 */
import { CLIENT_FORMATS, fileExtension, MAX_FILE_SIZE, SERVER_FORMATS } from '../../../../protocol/attachments';
import type { FileAnalysis } from '../../../../events/model';

export interface FileFacts {
  name: string;
  size: number;
  /** MIME type as the browser reports it (may be '' or wrong; the extension decides). */
  type?: string;
}

/** extension: lower case, no dot; estimatedProcessingTime: 1, or 1.5 for large files; reasons: why it is rejected. */
export type { FileAnalysis };

const CLIENT = new Set<string>(CLIENT_FORMATS);
const COMPLEX = new Set<string>(SERVER_FORMATS);

export function isClientFormat(ext: string): boolean {
  return CLIENT.has(ext);
}
export function isComplexFormat(ext: string): boolean {
  return COMPLEX.has(ext);
}

export function analyseFile(file: FileFacts): FileAnalysis {
  const extension = fileExtension(file.name);
  const large = file.size > MAX_FILE_SIZE;
  const known = CLIENT.has(extension) || COMPLEX.has(extension);
  const reasons: string[] = [];
  if (!known) reasons.push(extension === '' ? 'unknown file format (no extension)' : `unknown file format (.${extension})`);
  if (file.size === 0) reasons.push('the file is empty');
  const isSupported = reasons.length === 0;
  let needsServerProcessing = false;
  if (isSupported) {
    if (large) reasons.push('larger than 10 MB');
    if (COMPLEX.has(extension)) reasons.push(`complex format (.${extension})`);
    else if (!CLIENT.has(extension)) reasons.push(`format not handled in the browser (.${extension})`);
    needsServerProcessing = reasons.length > 0;
  }
  return {
    extension,
    isSupported,
    needsServerProcessing,
    recommendedProcessing: needsServerProcessing ? 'server' : 'client',
    estimatedProcessingTime: large ? 1.5 : 1,
    reasons,
  };
}
