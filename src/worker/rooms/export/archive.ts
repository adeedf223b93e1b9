/**
 * Many conversations in one file: a zip (fflate) holding, per conversation, its Markdown and its JSON export, and
 * an index.json listing them. Zip rather than JSON lines so the archive opens anywhere and each conversation
 * stays a readable .md; PDFs are left out (each costs seconds and hundreds of kilobytes; export one from its page).
 */
import { strToU8, zipSync, type Zippable } from 'fflate';
import { toJson } from './json';
import { toMarkdown } from './markdown';
import { exportFileName, type ExportSource } from './model';

export interface ArchiveIndexEntry {
  name: string;
  slug: string;
  messages: number;
  markdown: string;
  json: string;
}

/** The zip's bytes. Each source is what `checkExportable` returned; names are made unique by the slug. */
export function toArchive(sources: readonly ExportSource[], exportedAt: number): Uint8Array {
  const files: Zippable = {};
  const index: ArchiveIndexEntry[] = [];
  const used = new Set<string>();
  for (const source of sources) {
    let base = exportFileName(source, 'markdown').replace(/\.md$/, '');
    if (used.has(base)) base = `${base}-${source.conversation.slug}`;
    used.add(base);
    const entry = { name: source.conversation.name, slug: source.conversation.slug, messages: source.messages.length, markdown: `${base}.md`, json: `${base}.json` };
    files[entry.markdown] = strToU8(toMarkdown(source));
    files[entry.json] = strToU8(toJson(source));
    index.push(entry);
  }
  files['index.json'] = strToU8(`${JSON.stringify({ exportedAt: new Date(exportedAt).toISOString(), conversations: index }, null, 2)}\n`);
  return zipSync(files, { level: 6, mtime: new Date(exportedAt) });
}

/** "parley-conversations-2026-11-23.zip" */
export function archiveFileName(exportedAt: number): string {
  return `parley-conversations-${new Date(exportedAt).toISOString().slice(0, 10)}.zip`;
}
