/**
 * PDF export of a 500-message conversation with code and math (issue 8), in Node with the same jspdf and DejaVu
 * faces the engine worker uses:
 *  - time: our export (Markdown parsed to mdast, laid out: headings, lists, tables, code on a background, TeX)
 *    vs a bare jspdf writer putting the same characters on letter pages as plain wrapped lines (splitTextToSize,
 *    one font, no parsing): what layout costs on top of writing the text at all;
 *  - size: bytes of the two files (both embed subsets of the faces they use).
 * Each figure is the median of a few runs after a warm-up. Both writers parse and embed their faces inside the
 * timing; both reuse the fonts' binary strings (as the engine does between exports).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { jsPDF } from 'jspdf';
import { checkExportable, messageText, type ExportSource } from '../../src/worker/rooms/export/model';
import { fontBinary, PAGE, toPdf, type PdfFonts } from '../../src/worker/rooms/export/pdf';
import { size } from './smoke';
import type { Bench, BenchResult } from './types';

const MESSAGES = size(500, 10);
const RUNS = size(3, 1);

const require = createRequire(import.meta.url);
const ttf = (name: string) => readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${name}.ttf`));
const fonts: PdfFonts = { body: ttf('DejaVuSans'), bold: ttf('DejaVuSans-Bold'), mono: ttf('DejaVuSansMono') };

/** A realistic mix: short prompts; replies with prose, a list, code, a table, inline and display math. */
function conversation(): ExportSource {
  const messages = Array.from({ length: MESSAGES }, (_, i) => {
    const user = i % 2 === 0;
    const prompt = user
      ? `Question ${i}: how does the integral of x^${i % 7} behave, and can you show code? Ελληνικά και русский текст.`
      : [
          `## Step ${i}`,
          '',
          `The antiderivative is $\\frac{x^{${(i % 7) + 1}}}{${(i % 7) + 1}} + C$. Some prose follows to fill a paragraph that wraps over a few lines on a letter page, with **bold** and \`inline code\`.`,
          '',
          '- first point about the result',
          '- second point, with a longer explanation that wraps onto the next line of the page',
          '',
          '```python',
          'def integrate(f, a, b, n=1000):',
          '    h = (b - a) / n',
          '    return sum(f(a + (k + 0.5) * h) for k in range(n)) * h',
          '```',
          '',
          '$$',
          `\\int_0^1 x^{${i % 7}}\\,dx = \\frac{1}{${(i % 7) + 1}}`,
          '$$',
          '',
          '| n | integral |',
          '| --- | --- |',
          `| ${i % 7} | 1/${(i % 7) + 1} |`,
        ].join('\n');
    return { id: i + 1, role: user ? ('user' as const) : ('assistant' as const), timestamp: 1_763_900_000_000 + i * 60_000, model: 'bench-model', prompt };
  });
  const checked = checkExportable({ conversation: { name: 'Benchmark conversation', slug: 'bench' }, messages, exportedAt: 1_763_990_000_000 });
  if (!checked.ok) throw new Error(checked.error);
  return checked.source;
}

/** The baseline: the same text as plain lines, one face, no Markdown, jspdf's own splitter. */
function plainPdf(source: ExportSource): ArrayBuffer {
  const doc = new jsPDF({ unit: 'pt', format: 'letter', orientation: 'portrait', compress: true, putOnlyUsedFonts: true });
  doc.addFileToVFS('DejaVuSans.ttf', fontBinary(fonts.body));
  doc.addFont('DejaVuSans.ttf', 'DejaVuSans', 'normal', 'normal', 'Identity-H');
  doc.setFont('DejaVuSans', 'normal');
  doc.setFontSize(10.5);
  const lh = 10.5 * 1.35;
  let y = PAGE.margin + 10.5;
  const width = PAGE.width - 2 * PAGE.margin;
  const text = [source.conversation.name, ...source.messages.map(messageText)].join('\n\n');
  for (const line of doc.splitTextToSize(text, width) as string[]) {
    if (y > PAGE.height - PAGE.margin) {
      doc.addPage('letter', 'portrait');
      y = PAGE.margin + 10.5;
    }
    doc.text(line, PAGE.margin, y);
    y += lh;
  }
  return doc.output('arraybuffer');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const bench: Bench = async () => {
  const source = conversation();
  let ours = new ArrayBuffer(0);
  let plain = new ArrayBuffer(0);
  // Warm-up (JIT, font parsing code paths).
  toPdf(source, fonts);
  plainPdf(source);
  const oursMs: number[] = [];
  const plainMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    ours = toPdf(source, fonts);
    oursMs.push(performance.now() - t);
    t = performance.now();
    plain = plainPdf(source);
    plainMs.push(performance.now() - t);
  }
  const time = median(oursMs);
  const base = median(plainMs);
  const results: BenchResult[] = [
    {
      name: `PDF export, ${MESSAGES} messages with code and math: time`,
      unit: 'ms',
      value: time,
      baseline: base,
      ratio: time / base,
      // Most of the difference is parsing each message with the remark stack (micromark), which the plain writer
      // skips; the build runs in a worker of its own, so this is time to a file, not a frozen page.
      target: 'ratio <= 6 (vs jspdf writing the same plain text)',
      pass: time / base <= 6,
      notes: `median of ${RUNS}`,
    },
    {
      name: `PDF export, ${MESSAGES} messages with code and math: size`,
      unit: 'KB',
      value: ours.byteLength / 1024,
      baseline: plain.byteLength / 1024,
      ratio: ours.byteLength / plain.byteLength,
      target: 'ratio <= 2.5 (vs the plain-text PDF)',
      pass: ours.byteLength / plain.byteLength <= 2.5,
    },
  ];
  return results;
};

export default bench;
