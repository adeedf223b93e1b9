import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { markdownBlocks } from '../../../src/worker/rooms/export/pdf-blocks';
import { PAGE, sourceNeedsCjk, toPdf } from '../../../src/worker/rooms/export/pdf';
import { checkExportable, type ExportSource } from '../../../src/worker/rooms/export/model';
import { branchedSource, fonts, fontsWithCjk, message, RICH_TEXT } from './fixtures';

interface TextItem {
  str: string;
  transform: number[];
  height: number;
}

/** Every page of a PDF as pdf.js (an independent reader) sees it: size and text items. */
async function readPdf(bytes: ArrayBuffer): Promise<{ sizes: number[][]; pages: TextItem[][] }> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), disableFontFace: true }).promise;
  const sizes: number[][] = [];
  const pages: TextItem[][] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    sizes.push(page.view);
    const content = await page.getTextContent();
    pages.push(content.items.filter((i): i is TextItem & typeof i => 'str' in i));
  }
  await pdf.destroy();
  return { sizes, pages };
}

const squash = (s: string) => s.replace(/\s+/g, '');

function source(s: ExportSource): ExportSource {
  const c = checkExportable(s);
  if (!c.ok) throw new Error(c.error);
  return c.source;
}

describe('Markdown to PDF blocks', () => {
  it('parses code, tables, lists and math with the remark stack, math typeset as Unicode text', () => {
    const blocks = markdownBlocks(`${RICH_TEXT}\n\n1. first\n2. **second**\n\n- [x] done`);
    expect(blocks.map((b) => b.kind)).toEqual(['text', 'code', 'table', 'text', 'code', 'text', 'text', 'text']);
    const code = blocks[1]!;
    expect(code.kind === 'code' && code.text).toBe('def square(x):\n    return x * x');
    const table = blocks[2]!;
    expect(table.kind === 'table' && table.rows.map((r) => r.map((c) => c.map((x) => x.text).join('')))).toEqual([['α', 'alpha'], ['ж', 'zhe']]);
    const inline = blocks[3]!;
    expect(inline.kind === 'text' && inline.runs.map((r) => r.text).join('')).toBe('Inline math e^(iπ) + 1 = 0 and display:');
    const display = blocks[4]!;
    expect(display.kind === 'code' && display.math && display.text).toBe('∑ₖ₌₁ⁿ k = (n(n + 1))/2');
    expect(blocks.slice(5).map((b) => (b.kind === 'text' ? b.marker : null))).toEqual(['1.', '2.', '☑']);
  });
});

describe('PDF export', () => {
  it('is letter pages with the text selectable in a Unicode font, no character lost', async () => {
    const bytes = toPdf(source(branchedSource()), fonts);
    expect(new TextDecoder().decode(new Uint8Array(bytes, 0, 5))).toBe('%PDF-');
    const { sizes, pages } = await readPdf(bytes);
    for (const size of sizes) expect(size).toEqual([0, 0, 612, 792]);
    const text = pages.flat().map((i) => i.str).join('');
    expect(text).not.toContain('\uFFFD');
    for (const expected of ['Physics notes', 'Καλημέρα κόσμε', 'Привет, мир.', 'naïve café', 'return x * x', '∑ₖ₌₁ⁿ k = (n(n + 1))/2', 'e^(iπ) + 1 = 0']) {
      expect(squash(text)).toContain(squash(expected));
    }
    // Only the active branch.
    expect(text).not.toContain('Old answer');
  });

  it('heads a reply Auto chose "Assistant · Auto · <model>" (spec 000 section 3)', async () => {
    const s = branchedSource();
    const messages = s.messages.map((m) => (m.id === 3 ? { ...m, model: 'cheap-model', isAutoModel: true, autoModelSelectedModel: 'cheap-model' } : m));
    const { pages } = await readPdf(toPdf(source({ ...s, messages }), fonts));
    const text = squash(pages.flat().map((i) => i.str).join(''));
    expect(text).toContain(squash('Assistant · Auto · cheap-model ·'));
  });

  it("prints a reply's web sources, numbered (issue 16)", async () => {
    const s = branchedSource();
    const messages = s.messages.map((m) => (m.id === 5 ? { ...m, citations: [{ title: 'Euler identity', url: 'https://example.org/euler' }] } : m));
    const { pages } = await readPdf(toPdf(source({ ...s, messages }), fonts));
    const text = squash(pages.flat().map((i) => i.str).join(''));
    expect(text).toContain(squash('Sources'));
    expect(text).toContain(squash('1. Euler identity — https://example.org/euler'));
  });

  it('prints math as typeset symbols and the web sources, as pdftotext (poppler) reads the file (issue 16)', async () => {
    const reply = [
      'By Pythagoras $x^2 + y^2 = z^2$, and the sum:',
      '',
      '$$',
      '\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}',
      '$$',
      '',
      '```math',
      '\\sqrt{a^2+b^2} \\le \\alpha_1',
      '```',
      '',
      'Broken TeX stays as written: $\\frac{1}{$ here.',
    ].join('\n');
    const src = source({
      ...branchedSource(),
      messages: [
        message({ id: 1, role: 'user', prompt: 'Prove it' }),
        message({
          id: 2,
          role: 'assistant',
          prompt: reply,
          parentMessageId: 1,
          citations: [
            { title: 'Pythagorean theorem', url: 'https://example.org/pythagoras' },
            { title: 'Triangular number', url: 'https://example.net/triangular?n=1' },
          ],
        }),
      ],
    });
    const dir = await mkdtemp(join(tmpdir(), 'parley-pdf-'));
    try {
      const file = join(dir, 'export.pdf');
      await writeFile(file, new Uint8Array(toPdf(src, fonts)));
      const { stdout } = await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', file, '-']);
      const text = stdout.replace(/[^\S\n]+/g, ' ');
      for (const rendered of ['x² + y² = z²', '∑ₖ₌₁ⁿ k = (n(n + 1))/2', '√(a² + b²) ≤ α₁']) expect(text).toContain(rendered);
      for (const raw of ['x^2', '$$', '\\sum', '\\frac{n', '\\sqrt', '\\alpha', '```']) expect(text).not.toContain(raw);
      expect(text).toContain('$\\frac{1}{$');
      expect(text).not.toContain('\uFFFD');
      for (const shown of ['Sources', '1. Pythagorean theorem — https://example.org/pythagoras', '2. Triangular number — https://example.net/triangular?n=1']) {
        expect(text).toContain(shown);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('breaks pages between lines, never through one, inside the half-inch margins', async () => {
    const long = Array.from({ length: 60 }, (_, i) =>
      message({ id: i + 1, role: i % 2 ? 'assistant' : 'user', prompt: `Paragraph ${i} ${'lorem ipsum dolor sit amet '.repeat(12)}\n\n\`\`\`\n${'code line\n'.repeat(6)}\`\`\`` }),
    );
    const { sizes, pages } = await readPdf(toPdf(source({ ...branchedSource(), messages: long }), fonts));
    expect(sizes.length).toBeGreaterThan(3);
    for (const items of pages) {
      for (const item of items.filter((i) => i.str.trim() !== '')) {
        const baseline = item.transform[5]!;
        const x = item.transform[4]!;
        // A glyph's descent goes at most ~0.25 em below the baseline; its top at most one em above.
        expect(baseline - item.height * 0.25).toBeGreaterThanOrEqual(PAGE.margin - 0.5);
        expect(baseline + item.height).toBeLessThanOrEqual(PAGE.height - PAGE.margin + 0.5);
        expect(x).toBeGreaterThanOrEqual(PAGE.margin - 0.5);
      }
    }
    // Every paragraph made it, in order.
    const all = squash(pages.flat().map((i) => i.str).join(''));
    let at = 0;
    for (let i = 0; i < 60; i++) {
      const next = all.indexOf(`Paragraph${i}lorem`, at);
      expect(next).toBeGreaterThan(at - 1);
      at = next;
    }
  });

  it('wraps by measured width: no text runs past the right margin', async () => {
    const wide = message({ id: 1, role: 'user', prompt: `${'Широкий текст '.repeat(40)}\n\n| a | b |\n| - | - |\n| ${'x '.repeat(200)} | y |\n\n\`\`\`\n${'z'.repeat(400)}\n\`\`\`` });
    const bytes = toPdf(source({ ...branchedSource(), messages: [wide] }), fonts);
    const { pages } = await readPdf(bytes);
    const items = pages.flat().filter((i) => i.str.trim() !== '') as (TextItem & { width: number })[];
    for (const i of items) expect(i.transform[4]! + i.width).toBeLessThanOrEqual(PAGE.width - PAGE.margin + 0.5);
    expect(squash(items.map((i) => i.str).join(''))).toContain('z'.repeat(400));
  });

  it('draws characters no embedded face has as U+FFFD, never as an empty box', async () => {
    const cjk = message({ id: 1, role: 'user', prompt: 'Kanji 漢字 and emoji 😀 next to Ω' });
    const { pages } = await readPdf(toPdf(source({ ...branchedSource(), messages: [cjk] }), fonts));
    const text = pages.flat().map((i) => i.str).join('');
    expect(text).toContain('Kanji \uFFFD\uFFFD and emoji \uFFFD next to Ω');
  });

  it('draws Chinese and Japanese with the CJK face when the text has them; Hangul and emoji stay U+FFFD', async () => {
    const zh = '中文测试：你好，世界。';
    const ja = 'ひらがなとカタカナ、漢字。';
    const src = source({
      ...branchedSource(),
      conversation: { name: '笔记 notes', slug: 'notes' },
      messages: [
        message({ id: 1, role: 'user', prompt: `${zh}\n\n- ${ja}\n\n\`\`\`\nprint("代码")\n\`\`\`` }),
        message({ id: 2, role: 'assistant', prompt: `**粗体** Ελληνικά Кириллица 한국어 😀\n\n| 列 | col |\n| - | - |\n| 值 | v |` }),
      ],
    });
    expect(sourceNeedsCjk(src)).toBe(true);
    const bytes = toPdf(src, fontsWithCjk);
    const { pages } = await readPdf(bytes);
    const text = squash(pages.flat().map((i) => i.str).join(''));
    for (const expected of ['笔记notes', zh, ja, 'print("代码")', '粗体', 'ΕλληνικάКириллица', '列col', '值v']) expect(text).toContain(squash(expected));
    // Noto Sans SC has no Hangul syllables: a replacement mark, as for emoji.
    expect(text).toContain('\uFFFD\uFFFD\uFFFD\uFFFD');
    // jspdf subsets the 10 MB face to the glyphs used.
    expect(bytes.byteLength).toBeLessThan(400_000);
  });

  it('sets code in the monospaced face and headings larger than body text', async () => {
    const md = '# Big heading\n\nBody paragraph text.\n\n## Smaller heading\n\n```js\nconst answer = 42;\n```\n\nInline `tick()` call.';
    const bytes = toPdf(source({ ...branchedSource(), messages: [message({ id: 1, role: 'assistant', prompt: md })] }), fonts);
    const pdf = await getDocument({ data: new Uint8Array(bytes), disableFontFace: true }).promise;
    const page = await pdf.getPage(1);
    await page.getOperatorList(); // loads the page's fonts into commonObjs
    const items = ((await page.getTextContent()).items as unknown[]).filter(
      (i): i is TextItem & { fontName: string } => typeof i === 'object' && i !== null && 'str' in i && (i as TextItem).str.trim() !== '',
    );
    const fontOf = (text: string): string => {
      const item = items.find((i) => i.str.includes(text));
      expect(item, text).toBeDefined();
      return (page.commonObjs.get(item!.fontName) as { name: string }).name;
    };
    const sizeOf = (text: string): number => items.find((i) => i.str.includes(text))!.height;
    // The embedded faces by their PostScript names (subset prefix aside).
    expect(fontOf('answer')).toMatch(/DejaVuSansMono$/);
    expect(fontOf('42;')).toMatch(/DejaVuSansMono$/);
    expect(fontOf('tick()')).toMatch(/DejaVuSansMono$/);
    expect(fontOf('Body paragraph text.')).toMatch(/DejaVuSans$/);
    expect(fontOf('Big heading')).toMatch(/DejaVuSans-?Bold$/);
    expect(sizeOf('Big heading')).toBeGreaterThan(sizeOf('Smaller heading'));
    expect(sizeOf('Smaller heading')).toBeGreaterThan(sizeOf('Body paragraph text.'));
    await pdf.destroy();
  });

  it('needs the CJK face only for text that has CJK characters', () => {
    expect(sourceNeedsCjk(source(branchedSource()))).toBe(false);
    const latin = source({ ...branchedSource(), messages: [message({ id: 1, role: 'user', prompt: 'Grüße, Καλημέρα, Привет, 한국어 ☑ → ∑' })] });
    expect(sourceNeedsCjk(latin)).toBe(false);
    expect(sourceNeedsCjk({ ...latin, messages: [message({ id: 1, role: 'user', prompt: 'see 「引用」' })] })).toBe(true);
  });
});
