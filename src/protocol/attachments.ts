/**
 * Attachments and the library: limits, accepted types and the user-facing strings of spec 000 sections 5 and 8
 * and spec 001 sections 5, 8 and 9, verbatim, in one place (DESIGN rule 8). Shared by the engine worker (which
 * validates, compresses and reads files), the view (which shows chips and notices) and the gateway (which reads
 * documents and describes images). Texts the spec does not quote are marked "ours" (docs/errors.md).
 */

/** Spec 001 section 9: images up to 3.5 MB (3,670,016 bytes) pass unchanged. */
export const IMAGE_SIZE_LIMIT = 3_670_016;
/** Spec 001 section 9: compression. */
export const COMPRESSION = {
  maxIterations: 12,
  initialQuality: 0.8,
  qualityStep: 0.1,
  minQuality: 0.1,
  scaleStep: 0.1,
  minScale: 0.3,
  /** Scale starts shrinking once quality is at or below this. */
  shrinkBelowQuality: 0.2,
} as const;
/** Spec 000 sections 5 and 9: max file size 10 MB; larger documents go to the server. */
export const MAX_FILE_SIZE = 10 * 1024 * 1024;
/**
 * Ours (docs/decisions.md): the largest document the gateway reads (files over 10 MB are processed there). The
 * engine refuses anything larger from its size alone, before reading a byte.
 */
export const SERVER_MAX_FILE_SIZE = 50 * 1024 * 1024;
/** Spec 000 section 9: each inline image counts 85 tokens. */
export const INLINE_IMAGE_TOKENS = 85;
/** Spec 000 section 4: library polling for server work, every 2 s, up to 60 attempts. */
export const LIBRARY_POLL_MS = 2_000;
export const LIBRARY_POLL_ATTEMPTS = 60;
/** Spec 000 section 9: background migration batch. */
export const MIGRATION_IMAGE_BATCH = 3;

/** Spec 000 section 5: image upload accepts these extensions. */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'tiff', 'tif'] as const;

/** Spec 000 section 5: formats the browser reads itself. */
export const CLIENT_FORMATS = [
  'txt', 'md', 'csv', 'json', 'xml', 'yaml', 'yml', 'html', 'htm', 'css', 'js', 'py', 'java', 'cpp', 'c', 'h', 'cs',
  'ts', 'php', 'rb', 'sql', 'pdf', 'ini', 'conf', 'jpg', 'jpeg', 'png', 'tiff', 'bmp', 'gif', 'webp',
] as const;
/** Spec 000 section 5: complex formats that need the server. */
export const SERVER_FORMATS = ['doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'epub', 'mobi', 'zip', 'rar', '7z'] as const;
/** Formats the gateway's POST /api/process-document reads: the server list plus ODF (officeparser reads them). */
export const GATEWAY_FORMATS = [...SERVER_FORMATS, 'odt', 'odp', 'ods', 'rtf'] as const;

/** Library item status (spec 000 section 4; spec 001 section 3 upload status values). */
export type LibraryStatus = 'not started' | 'uploading' | 'processing' | 'completed' | 'error';
export const LIBRARY_STATUSES: readonly LibraryStatus[] = ['not started', 'uploading', 'processing', 'completed', 'error'];

/** Spec 001 sections 5 and 8, image upload and compression ("X" is the size). */
export const IMAGE_UPLOAD = {
  notAnImage: 'Please upload an image file (PNG, JPEG, WebP, etc.).',
  unsupportedFormatTitle: 'Unsupported image format',
  unsupportedFormatText: 'Supported image formats: JPG, PNG, WEBP, BMP, TIFF.',
  compressionDisabled: (x: string) => `File size (${x}) exceeds the 3.5MB limit. Please choose a smaller image or enable compression.`,
  tooLarge: (x: string) => `File is too large (${x}). Maximum size is 3.5MB due to server limitations.`,
  compressionUnavailable: (x: string) =>
    `Your image (${x}) is too large for upload (3.5MB limit). Please resize your image using an image editor and try again. Note: Automatic compression is not available in your current browser configuration.`,
  compressionFailed: (x: string, hint: 'canvas' | 'format' | null) =>
    `Your image (${x}) could not be automatically compressed to fit the 3.5MB limit. ` +
    (hint === 'canvas'
      ? 'Your browser may be blocking canvas access (privacy or canvas security settings, or an ad blocker). '
      : hint === 'format'
        ? 'The image may be in an unsupported or damaged format. '
        : '') +
    'Please resize your image using an image editor and try again.',
  unexpected: (x: string) => `Your image (${x}) could not be processed. Please try a different image or resize it to under 3.5MB using an image editor.`,
  compressingTitle: 'Compressing Image',
  compressingText: (name: string, x: string) => `Compressing ${name} (${x}) to fit the 3.5MB limit...`, // ours
  compressedTitle: 'Image Compressed Successfully',
  compressedText: (before: string, after: string, percent: number) => `${before} → ${after} (${percent}% smaller)`,
  uploadErrorTitle: 'Error adding image',
} as const;

/** Spec 001 section 8: the compressor's internal errors (logged; mapped to the messages above). */
export const COMPRESSION_ERROR = {
  failed: 'Failed to compress image',
  load: 'Failed to load image',
  context: 'Could not get canvas context',
  iterations: 'Failed to compress image within the specified iterations',
} as const;

/** Spec 000 section 8 and 5: image handling and description. */
export const IMAGE_DESCRIPTION = {
  notDescribed: '[Image could not be described]',
  failedTitle: 'Failed to get image description',
  addErrorTitle: 'Error adding image',
  addErrorText: 'Failed to add image. Please try again.',
  processingErrorTitle: 'Error processing images',
  processingErrorText: 'Your message was sent without image descriptions.', // ours
  /** Ours: what the describing model is asked. */
  prompt: 'Describe this image in detail, including any text it contains, so that someone who cannot see it understands it fully.',
} as const;

/** Spec 000 sections 5 and 8: documents and the library. */
export const UPLOAD = {
  unsupportedFile: (reasons: readonly string[]) => `Unsupported file: ${reasons.join(', ')}`,
  docxFailed: 'Unable to process .docx file. Both client-side and server-side processing failed.',
  docFailed: 'Unable to process .doc file. This file type requires server-side processing, which failed.',
  serverUnavailable: 'Server-side processing is not available. This file type requires server processing.',
  serverFailed: (reason: string) => `Server processing failed: ${reason}`,
  analysisFailed: 'Analysis failed',
  noText: 'No text content found in document',
  /** Issue 17: every password-protected or encrypted file, on either path, never read as ciphertext. */
  protectedFile: 'This file is password-protected. Remove the password and attach it again.',
  /** Ours: the title of an upload error notice. */
  errorTitle: 'Error adding file',
  sizeUnsupported: (x: string) => `File size not supported (${x}). The maximum is 10 MB, or 50 MB for documents the server reads.`, // ours
  empty: 'The file is empty', // ours
  pastedTextName: (n: number) => `Pasted text ${n}.txt`, // ours
} as const;

/** Spec 001 section 9: sizes under 1 MB display in KB, otherwise MB. */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

/** The lower-case extension of a file name ('' when none). Path separators are never part of it. */
export function fileExtension(name: string): string {
  const base = baseName(name);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/**
 * A file name safe to show and store: the last path segment only (a name like '../../etc/passwd' or
 * 'C:\\x\\y.txt' keeps 'passwd' / 'y.txt'), control characters removed, at most 255 characters.
 */
export function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what this strips from a file name
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const safe = clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
  return safe.length > 255 ? safe.slice(0, 255) : safe;
}
