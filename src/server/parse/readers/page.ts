/**
 * Readable text of a fetched page: HTML through @mozilla/readability on a linkedom document (no scripts run, no
 * subresources load: linkedom is a DOM without a browser), plain text as it is, PDF through pdfjs-dist's Node
 * build (eval off, no fonts loaded, the first PDF_MAX_PAGES pages). The result is plain text only: markup never
 * leaves this module, and the view shows it as text.
 *
 * Runs in a parse pool thread (../pool.ts) within its time and memory budget, never on the event loop. The
 * HTML is first cut to MAX_HTML_DEPTH levels of nesting (./nesting.ts), and Readability, whose cost grows with the
 * number of elements, reads only pages of at most READABLE_MAX_ELEMENTS: a larger page gives the text of its body.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { FetchedPage } from '../../net/fetch';
import { capNesting } from './nesting';
import { tidyText } from './tidy-text';

export { tidyText };
import { SCRAPED_CONTENT_MAX_CHARS } from '../../../protocol/web';

/** Most characters of a page's text kept for the model (about 5,000 tokens). */
export const CONTENT_MAX_CHARS = SCRAPED_CONTENT_MAX_CHARS;
export const TITLE_MAX_CHARS = 300;
/** Pages of a PDF read for text. */
export const PDF_MAX_PAGES = 50;
/** Most characters of HTML handed to the DOM parser (the 5 MB byte cap can hold more characters than that). */
const HTML_MAX_CHARS = 2_000_000;
/**
 * Most elements Readability is run on (about a second of work on a plain page, a few on a deeply nested one).
 * Past it the page's body text is given instead: all of the text, boilerplate included.
 */
export const READABLE_MAX_ELEMENTS = 10_000;

export interface ExtractedPage {
  url: string;
  title: string;
  content: string;
  /** The text was cut at CONTENT_MAX_CHARS, or the body at the fetch cap. */
  truncated: boolean;
}

function decode(body: Buffer, charset: string | null): string {
  if (charset) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // An unknown label: fall through to UTF-8.
    }
  }
  return new TextDecoder('utf-8').decode(body);
}

/** The charset a <meta> declares in the first 2 KB, for pages whose Content-Type names none. */
function metaCharset(body: Buffer): string | null {
  const head = body.subarray(0, 2048).toString('latin1');
  const m = /<meta[^>]{0,200}?charset\s*=\s*["']?([\w-]{1,40})/i.exec(head);
  return m?.[1] ?? null;
}

function clip(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return { text: `${text.slice(0, end)}…`, cut: true };
}

function titleFromUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url;
  }
}

/** Elements that end a line or a paragraph in the text of an article. */
const BLOCKS = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'HEADER', 'FOOTER', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'LI', 'UL', 'OL', 'PRE', 'BLOCKQUOTE', 'TABLE', 'TR', 'FIGURE', 'FIGCAPTION', 'DL', 'DT', 'DD', 'HR', 'BR']);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'EMBED', 'CANVAS']);

interface TextNodeLike {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<TextNodeLike>;
}

/** The text of a DOM tree with a line break around block elements. Iterative: a hostile page may nest deeply. */
export function blockText(root: TextNodeLike): string {
  const out: string[] = [];
  const stack: (TextNodeLike | '\n')[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    if (node === '\n') {
      out.push('\n');
      continue;
    }
    if (node.nodeType === 3) {
      out.push(node.nodeValue ?? '');
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) continue;
    const block = BLOCKS.has(name);
    if (block) {
      out.push('\n');
      stack.push('\n');
    }
    const kids = node.childNodes;
    for (let i = kids.length - 1; i >= 0; i--) {
      const k = kids[i];
      if (k) stack.push(k);
    }
  }
  return out.join('');
}

function extractHtml(page: FetchedPage): { title: string; text: string } {
  let html = decode(page.body, page.charset ?? metaCharset(page.body));
  if (html.length > HTML_MAX_CHARS) html = html.slice(0, HTML_MAX_CHARS);
  const capped = capNesting(html);
  html = capped.html;
  let { document } = parseHTML(html);
  // linkedom needs an <html> root: a page that is only a fragment (no <html>) is parsed again inside one (two
  // levels deeper, still far from anything slow).
  if (document.documentElement?.nodeName !== 'HTML') document = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`).document;
  const pageTitle = document.title || (document.querySelector('title')?.textContent ?? '');
  // Readability changes the document it reads; the fallback below reads what is left of the body.
  const article = capped.elements <= READABLE_MAX_ELEMENTS ? new Readability(document as unknown as Document, { charThreshold: 200 }).parse() : null;
  let text = '';
  if (article?.content) text = blockText(parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body as unknown as TextNodeLike);
  if (text.trim() === '' && document.body) text = blockText(document.body as unknown as TextNodeLike);
  return { title: (article?.title || pageTitle).trim(), text };
}

async function extractPdf(page: FetchedPage): Promise<{ title: string; text: string }> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    data: new Uint8Array(page.body),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    const doc = await task.promise;
    const meta = await doc.getMetadata().catch(() => null);
    const info = meta?.info as { Title?: unknown } | undefined;
    const parts: string[] = [];
    let chars = 0;
    for (let i = 1; i <= Math.min(doc.numPages, PDF_MAX_PAGES) && chars <= CONTENT_MAX_CHARS; i++) {
      const p = await doc.getPage(i);
      const content = await p.getTextContent();
      let line = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        line += item.str;
        if (item.hasEOL) line += '\n';
      }
      parts.push(line);
      chars += line.length;
      p.cleanup();
    }
    return { title: typeof info?.Title === 'string' ? info.Title.trim() : '', text: parts.join('\n\n') };
  } finally {
    await task.destroy();
  }
}

export class ExtractFailure extends Error {
  override name = 'ExtractFailure';
}

/** The page's readable title and text. Throws ExtractFailure when no text could be read. */
export async function extractPage(page: FetchedPage): Promise<ExtractedPage> {
  let raw: { title: string; text: string };
  try {
    if (page.kind === 'html') raw = extractHtml(page);
    else if (page.kind === 'pdf') raw = await extractPdf(page);
    else raw = { title: '', text: decode(page.body, page.charset) };
  } catch {
    throw new ExtractFailure(page.kind === 'pdf' ? 'The PDF could not be read' : 'The page could not be read');
  }
  // Tidied only as far as the clip needs (one character past it tells that the text was cut).
  const content = clip(tidyText(raw.text, CONTENT_MAX_CHARS + 1), CONTENT_MAX_CHARS);
  if (content.text === '') throw new ExtractFailure('The page has no readable text');
  const title = clip(tidyText(raw.title, TITLE_MAX_CHARS + 1).replace(/\n/g, ' '), TITLE_MAX_CHARS).text || titleFromUrl(page.url);
  return { url: page.url, title, content: content.text, truncated: content.cut || page.truncated };
}
