/**
 * Which file formats the gateway reads (./document.ts), by extension. Its own module, free of the readers'
 * libraries: POST /api/process-document checks the format on the event loop, and importing ./document.ts there
 * would load pdf.js into the gateway's main thread, whose legacy build replaces the global JSON.parse and
 * JSON.stringify with core-js polyfills (a replacer call per value and a character loop per string, for every
 * JSON the gateway writes). The readers themselves run in the parse threads (../pool.ts).
 */
import { CLIENT_FORMATS } from '../../../protocol/attachments';

export const OFFICE_TYPES: ReadonlySet<string> = new Set(['docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'rtf', 'epub']);
export const TEXT_TYPES: ReadonlySet<string> = new Set<string>(CLIENT_FORMATS.filter((f) => !['pdf', 'jpg', 'jpeg', 'png', 'tiff', 'bmp', 'gif', 'webp'].includes(f)));
const OTHER_TYPES: ReadonlySet<string> = new Set(['doc', 'ppt', 'xls', 'mobi', 'zip', 'rar', '7z', 'pdf']);

export function serverReads(ext: string): boolean {
  return OFFICE_TYPES.has(ext) || TEXT_TYPES.has(ext) || OTHER_TYPES.has(ext);
}
