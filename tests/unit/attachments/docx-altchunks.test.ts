/**
 * DOCX altChunks, headers and footers (src/protocol/docx-extras.ts), read the same on both paths: the HTML of a
 * chunk as text, the relationships that name chunks, and hostile markup read in one forward pass.
 */
import { describe, expect, it } from 'vitest';
import { altChunkNames, docxExtraText, htmlChunkText } from '../../../src/protocol/docx-extras';

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
      false,
    );
    expect(text).toBe('From HTML\nFrom text\nline two\n\nHeaders:\nAcme Ltd\nDraft\n\nFooters:\nPage 1\n\nFootnotes:\nA note.');
  });
});
