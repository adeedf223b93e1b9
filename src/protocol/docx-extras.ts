/**
 * The text a DOCX keeps outside the body's paragraphs that the two readers miss: altChunks (content another program
 * put in as HTML or plain text, word/afchunk*.htm and the like, named by the document's relationships), headers and
 * footers (word/header*.xml, word/footer*.xml), footnotes and endnotes (word/footnotes.xml, word/endnotes.xml): both
 * mammoth in the browser and officeparser on the gateway drop them all; and text boxes (w:txbxContent; officeparser
 * drops them, mammoth reads them). Shared by both paths so that they give the same words. Read by scanning for tags with indexOf (linear in the part's size, whatever its nesting): a
 * paragraph is the w:t runs up to its </w:p>, w:tab a tab.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

/** The paragraphs of a WordprocessingML fragment, one line each (empty ones dropped). */
export function paragraphTexts(xml: string): string[] {
  const out: string[] = [];
  for (const chunk of xml.split('</w:p>')) {
    let line = '';
    for (const m of chunk.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:tab\/>/g)) line += m[1] === undefined ? '\t' : decode(m[1]);
    line = line.trim();
    if (line !== '') out.push(line);
  }
  return out;
}

/** Each element `<tag ...>...</tag>` in order (its attributes and its inside), scanning forward only. */
function elements(xml: string, tag: string): { attrs: string; inner: string }[] {
  const out: { attrs: string; inner: string }[] = [];
  const close = `</${tag}>`;
  let at = 0;
  for (;;) {
    const start = xml.indexOf(`<${tag}`, at);
    if (start < 0) break;
    const after = xml[start + tag.length + 1];
    const headEnd = xml.indexOf('>', start);
    if (headEnd < 0) break;
    if (after !== '>' && after !== ' ' && after !== '\n' && after !== '\t' && after !== '\r') {
      at = start + 1; // a longer name (w:footnotePr, w:footnoteReference)
      continue;
    }
    const end = xml.indexOf(close, headEnd);
    if (end < 0) break;
    out.push({ attrs: xml.slice(start + tag.length + 1, headEnd), inner: xml.slice(headEnd + 1, end) });
    at = end + close.length;
  }
  return out;
}

/**
 * word/document.xml with its content controls (w:sdt) unwrapped: their content stays where it is, their properties
 * go (officeparser reads a control inside a paragraph but drops one that holds paragraphs or a table cell's).
 * Null when there is none.
 */
export function unwrapContentControls(documentXml: string): string | null {
  if (!documentXml.includes('<w:sdt')) return null;
  const xml = withoutElements(withoutElements(documentXml, '<w:sdtPr>', '</w:sdtPr>'), '<w:sdtEndPr>', '</w:sdtEndPr>');
  return xml.replace(/<\/?w:sdt(?:Content)?>|<w:sdtContent\/>|<w:sdtPr\/>|<w:sdtEndPr\/>/g, '');
}

/** The xml without each `open ... close` span (scanning forward only: an unclosed one stays). */
function withoutElements(xml: string, open: string, close: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const start = xml.indexOf(open, at);
    if (start < 0) break;
    const end = xml.indexOf(close, start);
    if (end < 0) break;
    out += xml.slice(at, start);
    at = end + close.length;
  }
  return out + xml.slice(at);
}

/** The notes of word/footnotes.xml or word/endnotes.xml, one line each (the separators Word adds skipped). */
export function notesText(xml: string, kind: 'footnote' | 'endnote'): string[] {
  return elements(xml, `w:${kind}`)
    .filter((n) => !/w:type="(separator|continuationSeparator|continuationNotice)"/.test(n.attrs))
    .map((n) => paragraphTexts(n.inner).join(' '))
    .filter((t) => t !== '');
}

/** The text boxes of word/document.xml, a line per paragraph (a box given twice, as DrawingML and VML, once). */
export function textBoxTexts(documentXml: string): string[] {
  const xml = withoutElements(documentXml, '<mc:Fallback>', '</mc:Fallback>');
  return elements(xml, 'w:txbxContent').flatMap((box) => paragraphTexts(box.inner));
}

/** Lines of the parts, each line once (a document's first-page, odd and even headers often repeat one another). */
function uniqueLines(parts: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of parts.flatMap((xml) => paragraphTexts(xml))) {
    if (seen.has(line)) continue;
    seen.add(line);
    out.push(line);
  }
  return out;
}

/** ASCII letters lowered, nothing else: the same length, so positions found in it hold in the original. */
const lowerAscii = (text: string): string => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/** The text of an HTML altChunk: head, scripts, styles and comments dropped, a line per block, entities decoded. */
export function htmlChunkText(html: string): string[] {
  let text = html;
  for (const [open, close] of [['<!--', '-->'], ['<head', '</head>'], ['<script', '</script>'], ['<style', '</style>']] as const) {
    const lower = lowerAscii(text);
    let out = '';
    let at = 0;
    for (;;) {
      const start = lower.indexOf(open, at);
      if (start < 0) break;
      const end = lower.indexOf(close, start);
      if (end < 0) break;
      out += text.slice(at, start);
      at = end + close.length;
    }
    text = out + text.slice(at);
  }
  // [^<>]* stops at the next '<': a tag never closed costs one pass, not one per '<'.
  text = text.replace(/<\/?([a-zA-Z][a-zA-Z0-9]*)[^<>]*>/g, (_, name: string) => (/^(p|div|br|li|tr|h[1-6]|table|ul|ol|blockquote|pre|section|article)$/i.test(name) ? '\n' : name.toLowerCase() === 'td' || name.toLowerCase() === 'th' ? '\t' : ''));
  return decode(text.replace(/&nbsp;/gi, ' '))
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '');
}

/** An altChunk's lines by its kind (HTML or plain text; MHT, RTF and nested DOCX chunks are not read). */
function chunkText(chunk: { name: string; text: string }): string[] {
  if (/\.(x?html?)$/i.test(chunk.name)) return htmlChunkText(chunk.text);
  if (/\.txt$/i.test(chunk.name)) return chunk.text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  return [];
}

/** The parts an altChunk relationship names in word/_rels/document.xml.rels (internal targets only), in order. */
export function altChunkNames(rels: string): string[] {
  const out: string[] = [];
  for (const m of rels.matchAll(/<Relationship\s[^<>]*>/g)) {
    const tag = m[0];
    if (!/Type="[^"]*\/aFChunk"/.test(tag) || /TargetMode="External"/.test(tag)) continue;
    const target = /Target="([^"]*)"/.exec(tag)?.[1];
    if (!target || target.includes('..')) continue;
    out.push(target.startsWith('/') ? target.slice(1) : `word/${target}`);
  }
  return out;
}

export interface DocxParts {
  document?: string | undefined;
  footnotes?: string | undefined;
  endnotes?: string | undefined;
  /** word/header*.xml, word/footer*.xml, in the order of their numbers. */
  headers?: string[];
  footers?: string[];
  /** The altChunks' parts, by name, in the relationships' order. */
  altChunks?: { name: string; text: string }[];
}

/**
 * What to add after a reader's text: altChunks, text boxes (when the reader misses them), then headers, footers,
 * footnotes and endnotes, each under its name.
 */
export function docxExtraText(parts: DocxParts, withTextBoxes: boolean): string {
  const blocks: string[] = [];
  const chunks = (parts.altChunks ?? []).flatMap(chunkText);
  if (chunks.length > 0) blocks.push(chunks.join('\n'));
  const boxes = withTextBoxes && parts.document ? textBoxTexts(parts.document) : [];
  if (boxes.length > 0) blocks.push(boxes.join('\n'));
  const headers = uniqueLines(parts.headers ?? []);
  if (headers.length > 0) blocks.push(`Headers:\n${headers.join('\n')}`);
  const footers = uniqueLines(parts.footers ?? []);
  if (footers.length > 0) blocks.push(`Footers:\n${footers.join('\n')}`);
  const footnotes = parts.footnotes ? notesText(parts.footnotes, 'footnote') : [];
  if (footnotes.length > 0) blocks.push(`Footnotes:\n${footnotes.join('\n')}`);
  const endnotes = parts.endnotes ? notesText(parts.endnotes, 'endnote') : [];
  if (endnotes.length > 0) blocks.push(`Endnotes:\n${endnotes.join('\n')}`);
  return blocks.join('\n\n');
}

/**
 * The parts docxExtraText reads, from a DOCX's zip entries as `unzip` gives them (fflate's unzipSync with a filter;
 * passed in so that this module stays free of dependencies). The caller has checked the archive's sizes first.
 */
export function docxParts(unzip: (wanted: (name: string) => boolean) => Record<string, Uint8Array>, withDocument: boolean): DocxParts {
  const names = new Set(['word/footnotes.xml', 'word/endnotes.xml', 'word/_rels/document.xml.rels', ...(withDocument ? ['word/document.xml'] : [])]);
  const headerOrFooter = /^word\/(header|footer)(\d*)\.xml$/;
  const files = unzip((name) => names.has(name) || headerOrFooter.test(name));
  const decoder = new TextDecoder();
  const text = (name: string): string | undefined => {
    const bytes = files[name];
    return bytes ? decoder.decode(bytes) : undefined;
  };
  const numbered = (kind: string): string[] =>
    Object.keys(files)
      .map((name) => ({ name, m: headerOrFooter.exec(name) }))
      .filter((f) => f.m?.[1] === kind)
      .sort((a, b) => Number(a.m?.[2] || 0) - Number(b.m?.[2] || 0))
      .map((f) => decoder.decode(files[f.name]));
  const rels = text('word/_rels/document.xml.rels');
  const chunkNames = rels ? altChunkNames(rels) : [];
  const chunkFiles = chunkNames.length > 0 ? unzip((name) => chunkNames.includes(name)) : {};
  const altChunks = chunkNames.flatMap((name) => {
    const bytes = chunkFiles[name];
    return bytes ? [{ name, text: decoder.decode(bytes) }] : [];
  });
  return { document: text('word/document.xml'), footnotes: text('word/footnotes.xml'), endnotes: text('word/endnotes.xml'), headers: numbered('header'), footers: numbered('footer'), altChunks };
}
