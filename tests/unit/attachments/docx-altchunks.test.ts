/**
 * DOCX altChunks, headers, footers and text boxes (src/protocol/docx-extras.ts), read the same on both paths: the
 * HTML of a chunk as text, the relationships that name chunks, text boxes after the paragraphs that anchor them, and
 * hostile markup read in one forward pass.
 */
import { describe, expect, it } from 'vitest';
import { zipSync, strToU8, unzipSync } from 'fflate';
import { altChunkNames, docxExtraText, htmlChunkText, paragraphTexts, textBoxesAfterAnchors } from '../../../src/protocol/docx-extras';
import { extractText } from '../../../src/server/parse/readers/document';
import { readDocx } from '../../../src/worker/rooms/library/attachments/documents';
import { makeDocx } from './fixtures';

describe('DOCX altChunks', () => {
  it('an HTML chunk: a line per block, cells tab-separated, entities decoded; head, style, script and comments dropped', () => {
    const html = '<HTML><HEAD><TITLE>t</TITLE></HEAD><body><!-- note --><H1>Plan</H1><p>A &amp; B&nbsp;&#233;t&eacute;</p><table><tr><td>x</td><td>y</td></tr></table><SCRIPT>bad()</SCRIPT><style>p{}</style></body></HTML>';
    expect(htmlChunkText(html)).toEqual(['Plan', 'A & B ét&eacute;', 'x y']);
  });

  it('a tag or a comment never closed does not swallow the rest, and many of them are read in one pass', () => {
    expect(htmlChunkText('<p>kept <b unclosed and <i>this too</i>')).toEqual(['kept <b unclosed and this too']);
    expect(htmlChunkText('<p>before</p><!-- never closed <p>after</p>')).toEqual(['before', '<!-- never closed', 'after']);
    const hostile = '<a '.repeat(200_000) + '<script'.repeat(50_000);
    expect(htmlChunkText(hostile).join('').length).toBeGreaterThan(0);
  });

  it('the relationships name the chunks: internal targets only, none outside word/', () => {
    const rels = '<Relationships>' +
      '<Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="afchunk.htm"/>' +
      '<Relationship Id="r2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      '<Relationship Id="r3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="http://x/y.htm" TargetMode="External"/>' +
      '<Relationship Id="r4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="../secret.txt"/>' +
      '<Relationship Id="r5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="/word/chunk2.txt"/></Relationships>';
    expect(altChunkNames(rels)).toEqual(['word/afchunk.htm', 'word/chunk2.txt']);
  });

  it('chunks first, then headers and footers each line once, then notes; MHT chunks are not read', () => {
    const para = (t: string): string => `<w:p><w:r><w:t>${t}</w:t></w:r></w:p>`;
    const text = docxExtraText(
      {
        altChunks: [{ name: 'word/a.htm', text: '<p>From HTML</p>' }, { name: 'word/b.txt', text: 'From text\r\n\r\nline two' }, { name: 'word/c.mht', text: 'MIME-Version: 1.0' }],
        headers: [para('Acme Ltd') + para('Draft'), para('Acme Ltd')],
        footers: [para('Page 1')],
        footnotes: '<w:footnotes><w:footnote w:id="1">' + para('A note.') + '</w:footnote></w:footnotes>',
      },
    );
    expect(text).toBe('From HTML\nFrom text\nline two\n\nHeaders:\nAcme Ltd\nDraft\n\nFooters:\nPage 1\n\nFootnotes:\nA note.');
  });
});

const run = (t: string): string => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`;
const para = (t: string): string => `<w:p>${run(t)}</w:p>`;
const box = (...lines: string[]): string => `<w:txbxContent>${lines.map(para).join('')}</w:txbxContent>`;
/** A text box as Word writes it: DrawingML, and the same box again as its VML fallback. */
const drawing = (...lines: string[]): string =>
  `<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx>${box(...lines)}</wps:txbx></w:drawing></mc:Choice>` +
  `<mc:Fallback><w:pict><v:textbox>${box(...lines)}</v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r>`;

describe('DOCX text boxes', () => {
  it('a box anchored mid-paragraph comes after that paragraph, once, its lines in order; tabs and entities kept', () => {
    const tabbed = `<w:p>${run('A &amp; B')}<w:r><w:tab/></w:r>${run('C')}</w:p>`;
    const xml = `<w:body>${para('Intro')}<w:p>${run('Before the box')}${drawing('Box line one').replace('</w:txbxContent>', `${tabbed}</w:txbxContent>`)}${run(' and after it.')}</w:p>${para('Closing')}</w:body>`;
    const out = textBoxesAfterAnchors(xml) ?? '';
    expect(paragraphTexts(out)).toEqual(['Intro', 'Before the box and after it.', 'Box line one', 'A & B\tC', 'Closing']);
  });

  it('two boxes in one paragraph, a box in a table cell, a box inside a box, a VML-only box: each after its paragraph', () => {
    const xml =
      `<w:body><w:p>${run('Two boxes')}${drawing('First')}${drawing('Second')}</w:p>` +
      `<w:tbl><w:tr><w:tc><w:p>${run('Cell')}${drawing('In the cell')}</w:p></w:tc></w:tr></w:tbl>` +
      `<w:p>${run('Outer')}<w:r><w:pict><v:textbox><w:txbxContent>${para('Outer box')}<w:p>${run('Inner anchor')}<w:r><w:pict><w:txbxContent>${para('Inner box')}</w:txbxContent></w:pict></w:r></w:p></w:txbxContent></v:textbox></w:pict></w:r></w:p>` +
      `${para('End')}</w:body>`;
    const out = textBoxesAfterAnchors(xml) ?? '';
    expect(out).toContain('</mc:AlternateContent></w:r></w:p><w:p><w:r><w:t xml:space="preserve">In the cell</w:t></w:r></w:p></w:tc>');
    expect(paragraphTexts(out)).toEqual(['Two boxes', 'First', 'Second', 'Cell', 'In the cell', 'Outer', 'Outer box', 'Inner anchorInner box', 'End']);
  });

  it('no box: null; a box never closed: the rest left as it is; hostile markup in one pass', () => {
    expect(textBoxesAfterAnchors(`<w:body>${para('Plain')}<w:txbxContentX/></w:body>`)).toBeNull();
    const unclosed = `<w:body>${para('Kept')}<w:p><w:txbxContent>${para('never closed')}</w:body>`;
    expect(textBoxesAfterAnchors(unclosed)).toBe(unclosed);
    const hostile = '<mc:Fallback>'.repeat(50_000) + '<w:txbxContent>'.repeat(50_000) + '</w:p>'.repeat(50_000) + '</w:txbxContent>'.repeat(20_000);
    expect(typeof textBoxesAfterAnchors(hostile)).toBe('string');
    const many = (para('x') + `<w:p>${drawing('y')}</w:p>`).repeat(20_000);
    // Each anchor paragraph holds nothing but its box: 'x', then the box's 'y'.
    expect(paragraphTexts(textBoxesAfterAnchors(`<w:body>${many}</w:body>`) ?? '').length).toBe(40_000);
  });

  it('mammoth (browser) and officeparser (gateway) give the same text, the box after its paragraph', async () => {
    const base = makeDocx(['x']);
    const files = unzipSync(base);
    const ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml"';
    files['word/document.xml'] = strToU8(`<?xml version="1.0" encoding="UTF-8"?><w:document ${ns} mc:Ignorable="wps"><w:body>${para('Heading')}<w:p>${run('The anchor paragraph')}${drawing('Sidebar text')}${run(' continues here.')}</w:p>${para('Last paragraph')}</w:body></w:document>`);
    const data = zipSync(files);
    const gateway = await extractText(data, 'docx');
    const { text: browser } = await readDocx(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
    expect(gateway).toBe('Heading\n\nThe anchor paragraph continues here.\n\nSidebar text\n\nLast paragraph');
    expect(browser).toBe(gateway);
  });

  it('content controls nested three deep (one in a table cell) are read on both paths, the same text', async () => {
    const files = unzipSync(makeDocx(['x']));
    const sdt = (inner: string): string => `<w:sdt><w:sdtPr><w:tag w:val="t"/></w:sdtPr><w:sdtContent>${inner}</w:sdtContent></w:sdt>`;
    const body = para('Top') + sdt(para('Outer text') + sdt(para('Inner text') + `<w:tbl><w:tr><w:tc>${sdt(para('Deep cell'))}</w:tc></w:tr></w:tbl>`)) + para('End');
    files['word/document.xml'] = strToU8(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`);
    const data = zipSync(files);
    const gateway = await extractText(data, 'docx');
    const { text: browser } = await readDocx(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
    expect(gateway).toBe('Top\n\nOuter text\n\nInner text\n\nDeep cell\n\nEnd');
    expect(browser).toBe(gateway);
  });
});
