/**
 * The text a DOCX keeps outside the body's paragraphs that the two readers miss: altChunks (content another program
 * put in as HTML or plain text, word/afchunk*.htm and the like, named by the document's relationships), headers and
 * footers (word/header*.xml, word/footer*.xml), footnotes and endnotes (word/footnotes.xml, word/endnotes.xml): both
 * mammoth in the browser and officeparser on the gateway drop them all. Text boxes and content controls are read in
 * place: both paths give their reader word/document.xml as documentForReaders makes it (officeparser drops text boxes
 * and block content controls; mammoth reads a text box inside the paragraph that anchors it). Shared by both paths so
 * that they give the same lines in the same order. Read by scanning for tags with indexOf (linear in the part's size,
 * whatever its nesting): a paragraph is the w:t runs up to its </w:p>, w:tab a tab.
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

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A plain paragraph holding one line (tabs as w:tab). */
const plainParagraph = (line: string): string =>
  `<w:p><w:r>${line
    .split('\t')
    .map((part) => `<w:t xml:space="preserve">${escapeXml(part)}</w:t>`)
    .join('<w:tab/>')}</w:r></w:p>`;

/** Where the next `<tag` (the whole name: not `<tagX`) starts at or after `from`, or -1. */
function openTag(xml: string, tag: string, from: number): number {
  for (let at = xml.indexOf(`<${tag}`, from); at >= 0; at = xml.indexOf(`<${tag}`, at + 1)) {
    const after = xml[at + tag.length + 1];
    if (after === '>' || after === '/' || after === ' ' || after === '\n' || after === '\t' || after === '\r') return at;
  }
  return -1;
}

/**
 * word/document.xml with each text box taken out of the paragraph that anchors it and put after that paragraph, a
 * plain paragraph per line (a box written twice, as DrawingML and as its VML fallback, once). Null when it has none.
 * One forward pass: each search starts past the last one's result (the next box, paragraph end, fallback are kept
 * until the scan passes them), and a box's end is found by counting the boxes opened inside it.
 */
export function textBoxesAfterAnchors(documentXml: string): string | null {
  const xml = documentXml;
  const TAG = 'w:txbxContent';
  const CLOSE = `</${TAG}>`;
  let nextBox = openTag(xml, TAG, 0);
  if (nextBox < 0) return null;
  let nextParaEnd = xml.indexOf('</w:p>');
  let nextFallback = xml.indexOf('<mc:Fallback');
  let fallbackEnd = -1; // where the last mc:Fallback opened so far closes
  let out = '';
  let at = 0;
  let pending: string[] = [];
  for (;;) {
    if (nextBox >= 0 && nextBox < at) nextBox = openTag(xml, TAG, at);
    if (nextParaEnd >= 0 && nextParaEnd < at) nextParaEnd = xml.indexOf('</w:p>', at);
    const box = nextBox;
    if (box >= 0 && (nextParaEnd < 0 || box < nextParaEnd)) {
      const headEnd = xml.indexOf('>', box);
      if (headEnd < 0) break;
      out += xml.slice(at, box);
      if (xml[headEnd - 1] === '/') {
        out += xml.slice(box, headEnd + 1); // <w:txbxContent/>
        at = headEnd + 1;
        continue;
      }
      // Its close, past the boxes opened inside it.
      let depth = 1;
      let scan = headEnd + 1;
      let end = -1;
      let inner = openTag(xml, TAG, scan);
      let close = xml.indexOf(CLOSE, scan);
      while (close >= 0) {
        if (inner >= 0 && inner < close) {
          const innerHeadEnd = xml.indexOf('>', inner);
          if (innerHeadEnd < 0) break;
          if (xml[innerHeadEnd - 1] !== '/') depth++;
          scan = innerHeadEnd + 1;
          inner = openTag(xml, TAG, scan);
        } else {
          scan = close + CLOSE.length;
          if (--depth === 0) {
            end = close;
            break;
          }
          close = xml.indexOf(CLOSE, scan);
        }
      }
      if (end < 0) {
        // Never closed: the rest is left as it is.
        out += xml.slice(box);
        at = xml.length;
        break;
      }
      while (nextFallback >= 0 && nextFallback < box) {
        if (nextFallback > fallbackEnd) {
          const fallbackClose = xml.indexOf('</mc:Fallback>', nextFallback);
          fallbackEnd = fallbackClose < 0 ? xml.length : fallbackClose;
        }
        nextFallback = xml.indexOf('<mc:Fallback', nextFallback + 1);
      }
      if (box > fallbackEnd) pending.push(...paragraphTexts(xml.slice(headEnd + 1, end)));
      out += `<${TAG}></${TAG}>`;
      at = end + CLOSE.length;
    } else if (nextParaEnd >= 0) {
      out += xml.slice(at, nextParaEnd + '</w:p>'.length) + pending.map(plainParagraph).join('');
      pending = [];
      at = nextParaEnd + '</w:p>'.length;
    } else {
      break;
    }
  }
  out += xml.slice(at);
  if (pending.length > 0) {
    const body = out.lastIndexOf('</w:body>');
    const paragraphs = pending.map(plainParagraph).join('');
    out = body < 0 ? out + paragraphs : out.slice(0, body) + paragraphs + out.slice(body);
  }
  return out;
}

/**
 * word/document.xml as both paths give it to their reader (mammoth, officeparser): content controls unwrapped, text
 * boxes after the paragraphs that anchor them. Null when there is nothing to change.
 */
export function documentForReaders(documentXml: string): string | null {
  const unwrapped = unwrapContentControls(documentXml);
  return textBoxesAfterAnchors(unwrapped ?? documentXml) ?? unwrapped;
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
  footnotes?: string | undefined;
  endnotes?: string | undefined;
  /** word/header*.xml, word/footer*.xml, in the order of their numbers. */
  headers?: string[];
  footers?: string[];
  /** The altChunks' parts, by name, in the relationships' order. */
  altChunks?: { name: string; text: string }[];
}

/**
 * A DOCX's text as both paths give it: the reader's body a paragraph per line, a blank line between them (as mammoth
 * lays it out; officeparser puts none), then the extra text (docxExtraText).
 */
export function docxText(body: string, extra: string): string {
  const lines = body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n\n');
  return [lines, extra].filter((t) => t !== '').join('\n\n');
}

/** What to add after a reader's text: altChunks, then headers, footers, footnotes and endnotes, each under its name. */
export function docxExtraText(parts: DocxParts): string {
  const blocks: string[] = [];
  const chunks = (parts.altChunks ?? []).flatMap(chunkText);
  if (chunks.length > 0) blocks.push(chunks.join('\n'));
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
export function docxParts(unzip: (wanted: (name: string) => boolean) => Record<string, Uint8Array>): DocxParts {
  const names = new Set(['word/footnotes.xml', 'word/endnotes.xml', 'word/_rels/document.xml.rels']);
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
  return { footnotes: text('word/footnotes.xml'), endnotes: text('word/endnotes.xml'), headers: numbered('header'), footers: numbered('footer'), altChunks };
}
