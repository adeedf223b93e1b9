/**
 * PDF export, built with jspdf where it runs (the engine worker in the browser; Node in tests and benchmarks):
 * US letter, portrait, 0.5 in margins (spec 000 section 1), real text in embedded DejaVu TTF faces, with Noto Sans SC
 * for CJK text (Identity-H, so
 * any character the faces have is selectable and searchable; jspdf subsets the fonts to the glyphs used).
 * Each message's Markdown is laid out from its mdast (./pdf-blocks.ts): headings, paragraphs, lists, quotes,
 * tables, code blocks in a monospaced face on a light background, math typeset as Unicode text (x² + y², ./math-text.ts). A line is the unit
 * of layout: a page break comes between lines, never through one.
 */
import { jsPDF } from 'jspdf';
import { messageBlocks, plainBlocks, BODY_SIZE, type Block, type Run } from './pdf-blocks';
import { unformattedNote } from '../../../protocol/markdown-note';
import { FACE, needsCjkFace, TextKit, type Face, type Line } from './pdf-text';
import { messageHeading, messageImages, messageSources, messageText, shownTime, type ExportSource } from './model';

/**
 * The TTF files of the three faces (DejaVu Sans, DejaVu Sans Bold, DejaVu Sans Mono), and Noto Sans SC for CJK
 * text, given only when the conversation has some (`needsCjkFace`): it is 10 MB.
 */
export interface PdfFonts {
  body: ArrayBuffer | Uint8Array;
  bold: ArrayBuffer | Uint8Array;
  mono: ArrayBuffer | Uint8Array;
  cjk?: ArrayBuffer | Uint8Array;
}

/** Letter in points (8.5 x 11 in) and half-inch margins. */
export const PAGE = { width: 612, height: 792, margin: 36 } as const;
const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
const BOTTOM = PAGE.height - PAGE.margin;
const LEADING = 1.35;
const CODE_SIZE = 9;
const CODE_PAD = 4;
const CELL_PAD = 4;
const TABLE_SIZE = 9.5;
const MATH_INDENT = 12;

const COLOR = {
  text: '#111111',
  muted: '#5b5f66',
  link: '#1a56c4',
  codeBg: '#f1f3f5',
  math: '#1f2d4d',
  rule: '#c9ccd1',
  headerBg: '#eceff3',
  quote: '#b7bcc4',
} as const;

const binaries = new WeakMap<ArrayBuffer | Uint8Array, string>();

/**
 * jspdf's virtual file system takes a font as a binary string. Made once per font buffer and kept while the
 * buffer lives (the engine keeps its fetched faces), so later exports skip 1.8 MB of conversion.
 */
export function fontBinary(bytes: ArrayBuffer | Uint8Array): string {
  let s = binaries.get(bytes);
  if (s !== undefined) return s;
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const parts: string[] = [];
  for (let i = 0; i < b.length; i += 0x2000) parts.push(String.fromCharCode.apply(null, b.subarray(i, i + 0x2000) as unknown as number[]));
  s = parts.join('');
  binaries.set(bytes, s);
  return s;
}

/** A jspdf document on letter pages with the three DejaVu faces registered (and the CJK face when given). */
export function newPdfDocument(fonts: PdfFonts): jsPDF {
  const doc = new jsPDF({ unit: 'pt', format: 'letter', orientation: 'portrait', compress: true, putOnlyUsedFonts: true });
  const files: [ArrayBuffer | Uint8Array | undefined, string][] = [[fonts.body, FACE.body], [fonts.bold, FACE.bold], [fonts.mono, FACE.mono], [fonts.cjk, FACE.cjk]];
  for (const [bytes, family] of files) {
    if (bytes === undefined) continue;
    doc.addFileToVFS(`${family}.ttf`, fontBinary(bytes));
    doc.addFont(`${family}.ttf`, family, 'normal', 'normal', 'Identity-H');
  }
  return doc;
}

/** The faces registered on a document from `newPdfDocument`. */
function registeredFaces(doc: jsPDF): Face[] {
  const list = doc.getFontList();
  return Object.values(FACE).filter((f) => f in list);
}

class Writer {
  private y: number = PAGE.margin;
  readonly kit: TextKit;

  constructor(readonly doc: jsPDF) {
    this.kit = new TextKit(doc, registeredFaces(doc));
  }

  private face = '';
  private size = 0;
  private color = '';

  /** Sets the text state, skipping what is already set (each setter costs jspdf work and stream bytes). */
  use(face: string, size: number, color: string): void {
    if (face !== this.face) this.doc.setFont((this.face = face), 'normal');
    if (size !== this.size) this.doc.setFontSize((this.size = size));
    if (color !== this.color) this.doc.setTextColor((this.color = color));
  }

  /** Starts a new page unless `height` more points fit on this one. */
  ensure(height: number): void {
    if (this.y + height > BOTTOM && this.y > PAGE.margin) {
      this.doc.addPage('letter', 'portrait');
      this.y = PAGE.margin;
    }
  }

  gap(points: number): void {
    if (this.y > PAGE.margin) this.y += points;
  }

  /** Draws one line at the cursor (after making room for it) and moves down. */
  line(line: Line, x: number, height: number, opts: { color?: string; background?: { x: number; width: number }; quoteX?: number; textTop?: number } = {}): number {
    this.ensure(height);
    const top = this.y;
    const { doc } = this;
    if (opts.background) {
      doc.setFillColor(COLOR.codeBg);
      doc.rect(opts.background.x, top, opts.background.width, height, 'F');
    }
    if (opts.quoteX !== undefined) {
      doc.setDrawColor(COLOR.quote);
      doc.setLineWidth(2);
      doc.line(opts.quoteX, top, opts.quoteX, top + height);
    }
    const size = line.pieces[0]?.size ?? BODY_SIZE;
    const baseline = top + (opts.textTop ?? 0) + (size * LEADING - size) / 2 + size * 0.8;
    let cx = x;
    for (const p of line.pieces) {
      if (p.text.trim() !== '') {
        this.use(p.face, p.size, p.link ? COLOR.link : (opts.color ?? COLOR.text));
        doc.text(p.text, cx, baseline);
        if (p.link) doc.link(cx, top, p.width, height, { url: p.link });
      }
      cx += p.width;
    }
    this.y = top + height;
    return top;
  }

  text(runs: readonly Run[], size: number, indent: number, opts: { color?: string; marker?: string; quote?: boolean } = {}): void {
    const x = PAGE.margin + indent;
    const height = size * LEADING;
    const lines = this.kit.wrap(runs, size, CONTENT_WIDTH - indent);
    lines.forEach((line, i) => {
      const top = this.line(line, x, height, { color: opts.color, quoteX: opts.quote ? PAGE.margin + indent - 7 : undefined });
      if (i === 0 && opts.marker) {
        const marker = this.kit.wrap([{ text: opts.marker, style: 'body' }], size, 100)[0]!;
        this.use(marker.pieces[0]?.face ?? FACE.body, size, COLOR.text);
        this.doc.text(opts.marker, x - 4 - marker.width, top + (height - size) / 2 + size * 0.8);
      }
    });
  }

  code(text: string, indent: number, math: boolean): void {
    const x = PAGE.margin + indent;
    const width = CONTENT_WIDTH - indent;
    const height = CODE_SIZE * LEADING;
    if (math) {
      // A display formula (Unicode text, ./math-text.ts): in the body face, one line per row, set in from the left.
      for (const l of text.split('\n')) this.text([{ text: l, style: 'body' }], BODY_SIZE, indent + 2 * MATH_INDENT, { color: COLOR.math });
      return;
    }
    const lines = text.split('\n').flatMap((l) => this.kit.wrapCode(l, CODE_SIZE, width - 2 * CODE_PAD));
    lines.forEach((line, i) => {
      // The first and last lines carry the block's padding, so the background stays one piece across lines.
      const padTop = i === 0 ? CODE_PAD : 0;
      const padBottom = i === lines.length - 1 ? CODE_PAD : 0;
      this.line(line, x + CODE_PAD, height + padTop + padBottom, {
        color: COLOR.text,
        background: { x, width },
        textTop: padTop,
      });
    });
  }

  table(block: Extract<Block, { kind: 'table' }>): void {
    const x0 = PAGE.margin + block.indent;
    const available = CONTENT_WIDTH - block.indent;
    const all = [block.header, ...block.rows];
    const columns = Math.max(0, ...all.map((r) => r.length));
    if (columns === 0) return;
    const widths = columnWidths(all, columns, available, (runs) => this.kit.wrap(runs, TABLE_SIZE, 1e9)[0]?.width ?? 0);
    const height = TABLE_SIZE * LEADING;
    const layout = (row: Run[][]) => widths.map((w, c) => this.kit.wrap(row[c] ?? [], TABLE_SIZE, w - 2 * CELL_PAD));
    const header = block.header.length > 0 ? layout(block.header) : null;
    const drawRow = (cells: Line[][], isHeader: boolean) => {
      const rowHeight = Math.max(...cells.map((c) => c.length)) * height + 2 * CELL_PAD;
      if (rowHeight > BOTTOM - PAGE.margin) {
        // Taller than a page: its cells' lines follow one another, each line whole.
        for (const cell of cells) for (const line of cell) this.line(line, x0 + CELL_PAD, height);
        return;
      }
      const before = this.y;
      this.ensure(rowHeight);
      if (this.y < before && !isHeader && header) drawRow(header, true);
      const top = this.y;
      let cx = x0;
      cells.forEach((cell, c) => {
        const w = widths[c]!;
        if (isHeader) {
          this.doc.setFillColor(COLOR.headerBg);
          this.doc.rect(cx, top, w, rowHeight, 'F');
        }
        this.doc.setDrawColor(COLOR.rule);
        this.doc.setLineWidth(0.5);
        this.doc.rect(cx, top, w, rowHeight, 'S');
        cell.forEach((line, i) => {
          this.y = top + CELL_PAD + i * height;
          this.line(line, cx + CELL_PAD, height);
        });
        cx += w;
      });
      this.y = top + rowHeight;
    };
    if (header) drawRow(header, true);
    for (const row of block.rows) drawRow(layout(row), false);
  }

  rule(indent: number): void {
    this.ensure(10);
    this.doc.setDrawColor(COLOR.rule);
    this.doc.setLineWidth(0.5);
    this.doc.line(PAGE.margin + indent, this.y + 5, PAGE.margin + CONTENT_WIDTH, this.y + 5);
    this.y += 10;
  }

  blocks(blocks: readonly Block[]): void {
    for (const block of blocks) {
      switch (block.kind) {
        case 'text':
          this.text(block.runs, block.size, block.indent, { marker: block.marker, quote: block.quote });
          this.gap(block.size * 0.45);
          break;
        case 'code':
          this.code(block.text, block.indent, block.math);
          this.gap(6);
          break;
        case 'table':
          this.table(block);
          this.gap(6);
          break;
        case 'rule':
          this.rule(block.indent);
          break;
      }
    }
  }
}

/**
 * Column widths: each column gets what its widest cell needs when everything fits; otherwise an even share,
 * with what narrow columns leave over given to the wide ones in proportion to what they ask.
 */
export function columnWidths(rows: readonly Run[][][], columns: number, available: number, measure: (runs: Run[]) => number): number[] {
  const natural = Array.from({ length: columns }, (_, c) => Math.max(24, ...rows.map((r) => measure(r[c] ?? []) + 2 * CELL_PAD + 1)));
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= available) return natural;
  const share = available / columns;
  const widths = natural.map((n) => Math.min(n, share));
  const left = available - widths.reduce((a, b) => a + b, 0);
  const wants = natural.map((n, i) => n - widths[i]!);
  const wanted = wants.reduce((a, b) => a + b, 0);
  return widths.map((w, i) => w + (wanted > 0 ? (left * wants[i]!) / wanted : 0));
}

/**
 * How a build treats each message's Markdown. `plain`: indexes of messages laid out as plain text without parsing
 * (the engine's watchdog names one whose parse ran past its budget, ./pdf-budget.ts); `onParse(i)` is told before
 * message i is parsed, and `onParse(-1)` when every message is, so that a watchdog can time each parse.
 */
export interface PdfBuildOptions {
  plain?: ReadonlySet<number>;
  onParse?: (index: number) => void;
}

/** Lays the conversation out on `doc` (a fresh document from `newPdfDocument`). */
export function writeConversation(doc: jsPDF, source: ExportSource, options: PdfBuildOptions = {}): void {
  // First every message's blocks (the parsing, which a watchdog can time), then the layout.
  const parsed = source.messages.map((m, i) => {
    options.onParse?.(i);
    const text = messageText(m);
    return options.plain?.has(i) ? { blocks: plainBlocks(text), plain: true } : messageBlocks(text);
  });
  options.onParse?.(-1);
  const w = new Writer(doc);
  doc.setProperties({ title: source.conversation.name, creator: 'Parley' });
  w.text([{ text: source.conversation.name, style: 'bold' }], 18, 0);
  const count = source.messages.length;
  w.text([{ text: `Exported ${shownTime(source.exportedAt)} · ${count} message${count === 1 ? '' : 's'}`, style: 'body' }], 9, 0, { color: COLOR.muted });
  source.messages.forEach((m, i) => {
    const { blocks, plain } = parsed[i]!;
    w.gap(10);
    // Keep a message's heading with its first line.
    w.ensure(9.5 * LEADING + BODY_SIZE * LEADING);
    w.rule(0);
    w.text([{ text: messageHeading(m), style: 'bold' }], 9.5, 0, { color: COLOR.muted });
    w.gap(3);
    if (plain) {
      w.text([{ text: unformattedNote(m.role), style: 'body' }], 9, 0, { color: COLOR.muted });
      w.gap(3);
    }
    w.blocks(blocks);
    for (const image of messageImages(m)) {
      w.text([{ text: 'url' in image ? `[image: ${image.url}]` : '[image: inline data, in the JSON export]', style: 'body' }], 9, 0, { color: COLOR.muted });
    }
    const sources = messageSources(m);
    if (sources.length > 0) {
      w.gap(3);
      w.text([{ text: 'Sources', style: 'bold' }], 9, 0, { color: COLOR.muted });
      for (const c of sources) w.text([{ text: `${c.n}. ${c.title} — ${c.url}`, style: 'body' }], 9, 0, { color: COLOR.muted });
    }
  });
}

/** The conversation has text only the CJK face draws: load it for this export. */
export function sourceNeedsCjk(source: ExportSource): boolean {
  return needsCjkFace(source.conversation.name) || source.messages.some((m) => needsCjkFace(messageText(m)) || messageSources(m).some((c) => needsCjkFace(c.title)));
}

/** The PDF file's bytes. `source` is what `checkExportable` returned. */
export function toPdf(source: ExportSource, fonts: PdfFonts, options: PdfBuildOptions = {}): ArrayBuffer {
  const doc = newPdfDocument(fonts);
  writeConversation(doc, source, options);
  return doc.output('arraybuffer');
}
