/**
 * The updates feed (spec 001 sections 2-4): our own entries, kept as data in the repository (./entries/*.md, one
 * markdown file each, with a small front matter: title and date). An entry's id is its file name without `.md`, so
 * read status (engine data, `updates.read`) stays attached to it whatever else changes. Bundled at build time.
 */
const files = import.meta.glob<string>('./entries/*.md', { query: '?raw', import: 'default', eager: true });

export interface UpdateEntry {
  id: string;
  title: string;
  /** YYYY-MM-DD. */
  date: string;
  /** Markdown. */
  text: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** One entry from its file name and text; throws on a missing title or date (a build-time mistake, caught by tests). */
export function parseEntry(fileName: string, source: string): UpdateEntry {
  const id = fileName.replace(/^.*\//, '').replace(/\.md$/, '');
  const m = FRONT_MATTER.exec(source);
  if (!m) throw new Error(`Update ${id}: no front matter`);
  const fields = new Map<string, string>();
  for (const line of (m[1] ?? '').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  const title = fields.get('title') ?? '';
  const date = fields.get('date') ?? '';
  if (title === '') throw new Error(`Update ${id}: no title`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) throw new Error(`Update ${id}: date must be YYYY-MM-DD`);
  return { id, title, date, text: source.slice(m[0].length).trim() };
}

/** Newest first; entries of one day by id, descending, so the order never depends on the file system. */
export function sortEntries(entries: UpdateEntry[]): UpdateEntry[] {
  return entries.sort((a, b) => (a.date === b.date ? (a.id < b.id ? 1 : -1) : a.date < b.date ? 1 : -1));
}

export const UPDATE_ENTRIES: readonly UpdateEntry[] = sortEntries(Object.entries(files).map(([name, text]) => parseEntry(name, text)));
export const UPDATE_IDS: ReadonlySet<string> = new Set(UPDATE_ENTRIES.map((e) => e.id));
