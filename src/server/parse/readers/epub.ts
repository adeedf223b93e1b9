/**
 * EPUB chapters whose file names are not .xhtml/.html/.htm (issue 17: a book whose chapters are named `.xml` came
 * back empty: officeparser picks chapters by file name). The package document (found through
 * META-INF/container.xml) is what says which files are chapters and in what order: its spine, through its manifest,
 * whatever the names. Entries are inflated with fflate each into a buffer of its declared size, within the same
 * total as the other zip-based documents; chapter text is read with htmlparser2 (entities decoded, block elements
 * end lines, head, script and style dropped).
 */
import { unzipSync } from 'fflate';
import { Parser } from 'htmlparser2';

const BLOCKS = new Set(['p', 'div', 'br', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'section', 'article', 'pre', 'table', 'dt', 'dd', 'figcaption', 'aside', 'header', 'footer']);
const CELLS = new Set(['td', 'th']);
const SKIP = new Set(['head', 'script', 'style']);
const HTML_NAME = /\.(xhtml|html|htm)$/i;

/** A path relative to a directory of the archive, with `.` and `..` resolved within it. */
function resolvePath(dir: string, href: string): string {
  let target = href.split('#')[0] ?? '';
  try {
    target = decodeURIComponent(target);
  } catch {
    // a malformed escape: the name as written
  }
  const parts = (dir + target).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}

const attr = (tag: string, name: string): string | undefined => new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag)?.slice(2).find((v) => v !== undefined);

export interface EpubSpine {
  /** The chapters' paths in the archive, in reading order (only (x)html media types). */
  chapters: string[];
}

/** The spine of the book: its chapters in reading order, by the package document. Null when there is none. */
export function epubSpine(files: Record<string, Uint8Array>): EpubSpine | null {
  const container = files['META-INF/container.xml'];
  const decoder = new TextDecoder();
  let opfPath = container ? attr(/<rootfile\b[^>]*>/i.exec(decoder.decode(container))?.[0] ?? '', 'full-path') : undefined;
  opfPath ??= Object.keys(files).find((n) => /\.opf$/i.test(n));
  const opf = opfPath ? files[opfPath] : undefined;
  if (!opfPath || !opf) return null;
  const text = decoder.decode(opf);
  const dir = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/') + 1) : '';
  const manifest = new Map<string, { href: string; type: string }>();
  for (const [tag] of text.matchAll(/<(?:\w+:)?item\b[^>]*>/gi)) {
    const id = attr(tag, 'id');
    const href = attr(tag, 'href');
    if (id && href) manifest.set(id, { href, type: attr(tag, 'media-type') ?? '' });
  }
  const chapters: string[] = [];
  for (const [tag] of text.matchAll(/<(?:\w+:)?itemref\b[^>]*>/gi)) {
    const item = manifest.get(attr(tag, 'idref') ?? '');
    if (item && /html|dtbook/i.test(item.type)) chapters.push(resolvePath(dir, item.href));
  }
  return { chapters };
}

/** A chapter's text: paragraphs on their own lines, table cells tab-separated (a cell of paragraphs: a line each). */
export function chapterText(markup: string): string {
  let out = '';
  let skipping = 0;
  const endLine = (): void => {
    out = out.replace(/[ \t]+$/, '');
    if (out !== '' && !out.endsWith('\n')) out += '\n';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP.has(name)) skipping++;
        else if (BLOCKS.has(name)) endLine();
        else if (CELLS.has(name)) out += '\t';
      },
      ontext(data) {
        if (skipping === 0) out += data;
      },
      onclosetag(name) {
        if (SKIP.has(name)) skipping = Math.max(0, skipping - 1);
        else if (BLOCKS.has(name)) endLine();
      },
    },
    { decodeEntities: true, xmlMode: false },
  );
  parser.write(markup);
  parser.end();
  return out
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/[ \u00a0]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Whether the book has chapters officeparser would not find (a spine item not named .xhtml/.html/.htm). Reads only
 * the container and the package document.
 */
export function epubNeedsSpineReader(data: Uint8Array): boolean {
  const files = unzipSync(data, { filter: (f) => f.originalSize <= 4 * 1024 * 1024 && (f.name === 'META-INF/container.xml' || /\.opf$/i.test(f.name)) });
  const spine = epubSpine(files);
  return spine !== null && spine.chapters.some((c) => !HTML_NAME.test(c));
}

/** The book's text, chapter by chapter in spine order; inflates at most `maxBytes` in all. */
export function epubText(data: Uint8Array, maxBytes: number): string {
  const head = unzipSync(data, { filter: (f) => f.originalSize <= 4 * 1024 * 1024 && (f.name === 'META-INF/container.xml' || /\.opf$/i.test(f.name)) });
  const spine = epubSpine(head);
  if (!spine) throw new Error('no package document');
  const wanted = new Set(spine.chapters);
  let total = 0;
  const files = unzipSync(data, {
    filter: (f) => {
      if (!wanted.has(f.name) || total + f.originalSize > maxBytes) return false;
      total += f.originalSize;
      return true;
    },
  });
  const decoder = new TextDecoder();
  return spine.chapters
    .map((c) => files[c])
    .map((b) => (b ? chapterText(decoder.decode(b)) : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}
