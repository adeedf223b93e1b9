/**
 * The text a DOCX keeps outside the body's paragraphs that the two readers miss: footnotes and endnotes
 * (word/footnotes.xml, word/endnotes.xml; both mammoth in the browser and officeparser on the gateway drop them) and
 * text boxes (w:txbxContent; officeparser drops them, mammoth reads them). Shared by both paths so that they give
 * the same words. Read by scanning for tags with indexOf (linear in the part's size, whatever its nesting): a
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

export interface DocxParts {
  document?: string | undefined;
  footnotes?: string | undefined;
  endnotes?: string | undefined;
}

/** What to add after a reader's text: text boxes (when the reader misses them), then footnotes, then endnotes. */
export function docxExtraText(parts: DocxParts, withTextBoxes: boolean): string {
  const blocks: string[] = [];
  const boxes = withTextBoxes && parts.document ? textBoxTexts(parts.document) : [];
  if (boxes.length > 0) blocks.push(boxes.join('\n'));
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
  const names = new Set(['word/footnotes.xml', 'word/endnotes.xml', ...(withDocument ? ['word/document.xml'] : [])]);
  const files = unzip((name) => names.has(name));
  const text = (name: string): string | undefined => {
    const bytes = files[name];
    return bytes ? new TextDecoder().decode(bytes) : undefined;
  };
  return { document: text('word/document.xml'), footnotes: text('word/footnotes.xml'), endnotes: text('word/endnotes.xml') };
}
