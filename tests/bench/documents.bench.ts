/**
 * Document reading (issue 7), in Node with the same code the engine's file worker and the gateway run:
 *  - a 100-page PDF read with pdf.js by readPdf (page by page): pages per second, against the same code on a
 *    10-page PDF (per-page speed must not fall with length). Target: at least 50 pages/s.
 *  - a 50-page DOCX read with mammoth (readDocx, the browser path) against officeparser on the same file (the
 *    gateway's fallback): ms each, ratio.
 *  - a 20-slide PPTX read by the gateway in its document worker thread (the parse pool, as POST /api/process-document
 *    does) against the same extraction in-process: what the thread's isolation costs.
 * Medians of RUNS after a warm-up.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { loadParseConfig } from '../../src/server/parse/config';
import { ParsePool } from '../../src/server/parse/pool';
import { extractText } from '../../src/server/parse/readers/document';
import { readDocx, readPdf, type PdfJs } from '../../src/worker/rooms/library/attachments/documents';
import { makeDocx, makePdf, makePptx } from '../unit/attachments/fixtures';
import { median } from './conversation-view/harness';
import { size } from './smoke';
import type { Bench } from './types';

const RUNS = Number(process.env.BENCH_ROUNDS ?? size(5, 1));
const pdfjs = { getDocument } as unknown as PdfJs;
const line = (n: number): string => `Paragraph ${n}: the quarterly figures show steady growth across every region, with costs held flat and margins up two points.`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

const bench: Bench = async () => {
  const pdf100 = makePdf(size(100, 10), (n) => `${line(n)} Page ${n}.`);
  const pdf10 = makePdf(10, (n) => `${line(n)} Page ${n}.`);
  const ms100 = await timed(() => readPdf(pdfjs, pdf100.slice()));
  const ms10 = await timed(() => readPdf(pdfjs, pdf10.slice()));
  const pps100 = size(100, 10) / (ms100 / 1000);
  const pps10 = 10 / (ms10 / 1000);

  // About 50 pages: 25 paragraphs of ~120 characters a page.
  const docx = makeDocx(Array.from({ length: size(50, 2) * 25 }, (_, i) => line(i)));
  const buf = docx.buffer.slice(docx.byteOffset, docx.byteOffset + docx.byteLength) as ArrayBuffer;
  const mammothMs = await timed(() => readDocx(buf));
  const officeMs = await timed(() => extractText(docx.slice(), 'docx'));

  const pptx = makePptx(Array.from({ length: 20 }, (_, i) => `Slide ${i + 1}. ${line(i)}`));
  const pool = new ParsePool(loadParseConfig({}));
  const threadMs = await timed(() => pool.extractDocument('bench', pptx.slice(), 'pptx'));
  const inProcessMs = await timed(() => extractText(pptx.slice(), 'pptx'));
  await pool.close();

  return [
    { name: '100-page PDF text with pdf.js (readPdf), pages per second, vs a 10-page PDF', unit: 'pages/s', value: pps100, baseline: pps10, ratio: pps100 / pps10, target: '>= 50 pages/s', pass: pps100 >= 50, notes: `${ms100.toFixed(0)} ms for 100 pages` },
    { name: '50-page DOCX with mammoth (browser path) vs officeparser (gateway fallback)', unit: 'ms', value: mammothMs, baseline: officeMs, ratio: mammothMs / officeMs, target: 'under 2 s', pass: mammothMs < 2000 },
    { name: '20-slide PPTX on the gateway: document worker thread vs in-process', unit: 'ms', value: threadMs, baseline: inProcessMs, ratio: threadMs / inProcessMs, target: 'under 1 s', pass: threadMs < 1000 },
  ];
};

export default bench;
