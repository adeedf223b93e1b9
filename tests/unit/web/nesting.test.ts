/**
 * The nesting cap of scraped HTML (src/server/parse/readers/nesting.ts): it follows the open elements exactly as
 * htmlparser2's parser does (so the cap holds for the tree linkedom builds), keeps every word of a page nested
 * beyond it, and is linear where htmlparser2's own parser is not (no wall clock: ../server/scaling.ts compares CPU time).
 */
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { parseHTML } from 'linkedom';
import { blockText, CONTENT_MAX_CHARS, extractPage, tidyText } from '../../../src/server/parse/readers/page';
import { capNesting, MAX_HTML_DEPTH } from '../../../src/server/parse/readers/nesting';
import { scaling } from '../server/scaling';

/** The deepest nesting htmlparser2's parser builds (what linkedom's tree gets). */
function parserDepth(html: string): number {
  let depth = 0;
  let max = 0;
  const parser = new Parser({ onopentag: () => void (max = Math.max(max, ++depth)), onclosetag: () => void depth-- }, { decodeEntities: true });
  parser.end(html);
  return max;
}

const page = (body: string): string => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

const SAMPLES: Record<string, string> = {
  'unclosed paragraphs': page('<div>' + '<p>one '.repeat(300) + '</div>'),
  'unclosed list items and cells': page('<ul>' + '<li>item'.repeat(200) + '</ul><table>' + '<tr><td>a<td>b'.repeat(100) + '</table>'),
  'options, dd/dt, ruby': page('<select>' + '<option>x'.repeat(50) + '</select><dl>' + '<dt>t<dd>d'.repeat(50) + '</dl><ruby>' + '<rt>a<rp>b'.repeat(20) + '</ruby>'),
  'svg self-closing tags': page('<svg>' + '<g><path d="M0 0"/>'.repeat(80) + '</svg><div/>'.repeat(90)),
  'raw text and comments hide tags': page('<script>' + '<div>'.repeat(500) + '</script><style>' + '<p>'.repeat(500) + '</style><!--' + '<div>'.repeat(500) + '--><textarea>' + '<b>'.repeat(300) + '</textarea>'),
  'stray and mismatched end tags': page('<div><span><b>x</i></p></br></div>' + '</span>'.repeat(100) + '<em>'.repeat(120) + 'text' + '</div>'.repeat(50)),
  'upper case and attributes with >': page('<DIV class="a>b">'.repeat(150) + 'X' + '</div>'.repeat(150)),
  'deep inline nesting': page('<span>word '.repeat(2_000)),
};

describe('capNesting', () => {
  for (const [name, html] of Object.entries(SAMPLES)) {
    it(`counts the depth htmlparser2 builds, and caps it: ${name}`, () => {
      const capped = capNesting(html);
      expect(capped.depth).toBe(parserDepth(html));
      expect(parserDepth(capped.html)).toBe(Math.min(capped.depth, MAX_HTML_DEPTH));
      if (capped.depth <= MAX_HTML_DEPTH) expect(capped.html).toBe(html);
      else expect(capped.flattened).toBeGreaterThan(0);
    });
  }

  it('keeps every line of a page of 2,500 nested <div>s, in order', async () => {
    const lines = Array.from({ length: 2_500 }, (_, i) => `w${i}`);
    const html = page(lines.map((l) => `<div>${l}`).join('') + '</div>'.repeat(2_500));
    const flat = capNesting(html);
    const text = tidyText(blockText(parseHTML(flat.html).document.body as unknown as Parameters<typeof blockText>[0]));
    expect(text.split('\n').filter((l) => l !== '')).toEqual(lines);
    // Readability then takes the page's main block (here all but the outer levels' words).
    const extracted = await extractPage({ url: 'http://example.test/', kind: 'html', charset: 'utf-8', body: Buffer.from(html), truncated: false });
    const read = extracted.content.split('\n').filter((l) => l !== '');
    expect(read.length).toBeGreaterThan(2_400);
    expect(read.at(-1)).toBe('w2499');
  });

  it('is linear in the page, where nesting is what makes parsers slow (8× the page, well under 20× the CPU time)', () => {
    const unclosed = scaling((n) => page('<span>word '.repeat(n)), (html) => capNesting(html), 5_000);
    expect(unclosed.ratio).toBeLessThan(20);
    const nested = scaling((n) => page('<div>'.repeat(n) + 'x' + '</div>'.repeat(n)), (html) => capNesting(html), 5_000);
    expect(nested.ratio).toBeLessThan(20);
  }, 120_000);
});

describe('tidyText with a limit', () => {
  it('gives the start of the whole tidy, just past the limit (a line break and its character come together)', () => {
    const page = `  Title \t line\r\n\n\n\nsecond   paragraph  \n${'word  '.repeat(5_000)}\n\nend`;
    const whole = tidyText(page);
    for (const limit of [0, 5, 11, 12, 17, 1_000, whole.length - 1]) {
      const cut = tidyText(page, limit);
      expect(whole.startsWith(cut)).toBe(true);
      expect(cut.length).toBeGreaterThan(limit);
      expect(cut.length).toBeLessThanOrEqual(limit + 3);
    }
    expect(tidyText(page, whole.length + 10)).toBe(whole);
  });

  it('a 5 MB page is clipped to CONTENT_MAX_CHARS and marked cut, as the whole tidy would give it', async () => {
    const body = Buffer.from(`${'a'.repeat(3_000_000)} ${'b '.repeat(1_000_000)}`);
    const page = await extractPage({ url: 'http://example.test/huge', kind: 'text', charset: null, body, truncated: false });
    expect(page.truncated).toBe(true);
    expect(page.content).toBe(`${'a'.repeat(CONTENT_MAX_CHARS)}…`);
  });
});
