/**
 * Archives (zip, rar, 7z): the listing of what is inside, then the text files extracted within a total-size cap.
 * Nothing is written to disk: zip is read with fflate (only the chosen entries are inflated, each into a buffer of
 * its declared size), rar with node-unrar-js and 7z with 7z-wasm (both WebAssembly, in memory). A zip bomb is
 * contained by the declared sizes: entries whose text would pass the cap are listed, never inflated.
 */
import { unzipSync } from 'fflate';
import { CLIENT_FORMATS, baseName, fileExtension, formatFileSize } from '../../../protocol/attachments';
import { ProtectedFileError } from './protection';
import { decodeTextLoose } from './text';

export const ARCHIVE_LIMITS = {
  /** Entries listed (the rest are counted). */
  maxListed: 1_000,
  /** Total text extracted from the archive's files. */
  maxTextBytes: 4 * 1024 * 1024,
  /** Largest single file extracted. */
  maxFileBytes: 1024 * 1024,
};

export interface ArchiveEntry {
  name: string;
  size: number;
  directory: boolean;
}

const TEXT_FORMATS = new Set<string>(CLIENT_FORMATS.filter((f) => !['pdf', 'jpg', 'jpeg', 'png', 'tiff', 'bmp', 'gif', 'webp'].includes(f)));

export function isTextEntry(e: ArchiveEntry): boolean {
  return !e.directory && TEXT_FORMATS.has(fileExtension(e.name)) && e.size > 0;
}

/** Which entries to extract: text files, smallest cap first in archive order, within the total cap. */
export function chooseTextEntries(entries: readonly ArchiveEntry[], limits = ARCHIVE_LIMITS): Set<string> {
  const chosen = new Set<string>();
  let total = 0;
  for (const e of entries) {
    if (!isTextEntry(e) || e.size > limits.maxFileBytes || total + e.size > limits.maxTextBytes) continue;
    chosen.add(e.name);
    total += e.size;
  }
  return chosen;
}

/** The archive as text: a listing (names shown as their safe base path), then each extracted text file. */
export function renderArchive(kind: string, entries: readonly ArchiveEntry[], texts: ReadonlyMap<string, string>, limits = ARCHIVE_LIMITS): string {
  const files = entries.filter((e) => !e.directory);
  const lines = [`${kind} archive: ${files.length} file${files.length === 1 ? '' : 's'}`];
  for (const e of files.slice(0, limits.maxListed)) lines.push(`- ${displayPath(e.name)} (${formatFileSize(e.size)})`);
  if (files.length > limits.maxListed) lines.push(`- ... and ${files.length - limits.maxListed} more`);
  const skipped = files.filter((e) => isTextEntry(e) && !texts.has(e.name)).length;
  if (skipped > 0) lines.push(`(${skipped} text file${skipped === 1 ? '' : 's'} not extracted: over the size limit)`);
  for (const [name, text] of texts) lines.push('', `--- ${displayPath(name)} ---`, text);
  return lines.join('\n');
}

/** An entry path as shown: '..' and empty segments dropped, so a traversal name can never look like another path. */
export function displayPath(name: string): string {
  const parts = name.split(/[\\/]/).filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.length === 0 ? baseName(name) : parts.map((p) => baseName(p)).join('/');
}

export function zipText(data: Uint8Array, limits = ARCHIVE_LIMITS): string {
  const entries: ArchiveEntry[] = [];
  unzipSync(data, {
    filter(f) {
      entries.push({ name: f.name, size: f.originalSize, directory: f.name.endsWith('/') });
      return false;
    },
  });
  const chosen = chooseTextEntries(entries, limits);
  const texts = new Map<string, string>();
  if (chosen.size > 0) {
    const files = unzipSync(data, { filter: (f) => chosen.has(f.name) && f.originalSize <= limits.maxFileBytes });
    for (const e of entries) {
      const bytes = files[e.name];
      if (bytes) texts.set(e.name, decodeTextLoose(bytes.subarray(0, limits.maxFileBytes)));
    }
  }
  return renderArchive('ZIP', entries, texts, limits);
}

export async function rarText(data: Uint8Array, limits = ARCHIVE_LIMITS): Promise<string> {
  const { createExtractorFromData } = await import('node-unrar-js');
  let extractor;
  let list;
  try {
    extractor = await createExtractorFromData({ data: Uint8Array.from(data).buffer });
    list = extractor.getFileList();
    if (list.arcHeader.flags.headerEncrypted) throw new ProtectedFileError();
  } catch (e) {
    // unrar asks for a password for an archive whose names are encrypted
    if (e instanceof ProtectedFileError || (e instanceof Error && /password/i.test(e.message))) throw new ProtectedFileError();
    throw e;
  }
  const entries: ArchiveEntry[] = [];
  for (const h of list.fileHeaders) {
    if (h.flags.encrypted) throw new ProtectedFileError();
    entries.push({ name: h.name, size: h.unpSize, directory: h.flags.directory });
  }
  const chosen = chooseTextEntries(entries, limits);
  const texts = new Map<string, string>();
  if (chosen.size > 0) {
    const out = extractor.extract({ files: [...chosen] });
    for (const f of out.files) {
      if (f.extraction && f.extraction.length <= limits.maxFileBytes) texts.set(f.fileHeader.name, decodeTextLoose(f.extraction));
    }
  }
  return renderArchive('RAR', entries, texts, limits);
}

/** 7z through the 7-Zip command line compiled to WebAssembly, on its in-memory file system. */
export async function sevenZipText(data: Uint8Array, limits = ARCHIVE_LIMITS): Promise<string> {
  const factory = (await import('7z-wasm')).default;
  const printed: string[] = [];
  const sz = await factory({ print: (line: string) => printed.push(line), printErr: () => undefined });
  sz.FS.writeFile('/in.7z', data);
  // -bsp0: no progress output (it would prefix the first 'Path = ' line with a backspaced counter).
  sz.callMain(['l', '-slt', '-ba', '-bsp0', '/in.7z']);
  const entries: ArchiveEntry[] = [];
  let current: Partial<ArchiveEntry> = {};
  const flush = (): void => {
    if (current.name !== undefined) entries.push({ name: current.name, size: current.size ?? 0, directory: current.directory ?? false });
    current = {};
  };
  for (const raw of printed) {
    // Whatever a terminal would have erased (text before a backspace) is not part of the line.
    const line = raw.slice(raw.lastIndexOf('\b') + 1);
    if (line.startsWith('Path = ')) {
      flush();
      current.name = line.slice(7);
    } else if (line.startsWith('Size = ')) current.size = Number(line.slice(7)) || 0;
    else if (line.startsWith('Folder = ')) current.directory = line.slice(9).trim() === '+';
    else if (line.startsWith('Encrypted = +')) throw new ProtectedFileError();
    else if (line.startsWith('Attributes = ') && line.includes('D')) current.directory = current.directory ?? line.slice(13).startsWith('D');
  }
  flush();
  if (entries.length === 0 && !printed.some((l) => l.startsWith('Path'))) throw new Error('not a valid 7z archive');
  const chosen = chooseTextEntries(entries, limits);
  const texts = new Map<string, string>();
  let index = 0;
  for (const name of chosen) {
    // One file at a time to its own folder, so names (even '../x') stay inside the in-memory file system.
    const dir = `/out${index++}`;
    sz.FS.mkdir(dir);
    sz.callMain(['e', '-y', `-o${dir}`, '/in.7z', name]);
    try {
      const file = sz.FS.readFile(`${dir}/${baseName(name)}`);
      if (file.length <= limits.maxFileBytes) texts.set(name, decodeTextLoose(file));
    } catch {
      // Not extracted (damaged entry): it stays listed only.
    }
  }
  return renderArchive('7z', entries, texts, limits);
}
