/**
 * Measuring, font fallback and word wrapping for the PDF writer. Widths come from the embedded fonts' own
 * metrics (jspdf's parsed TTF tables), so lines wrap where they really end. Hand-written: jspdf's splitTextToSize
 * knows one font per string, and a line here mixes faces (body, bold, code) and falls back per character.
 */
import type { jsPDF } from 'jspdf';
import type { Run, RunStyle } from './pdf-blocks';

/** jspdf font family names registered by the writer (`cjk` only when the text needs it). */
export const FACE = { body: 'DejaVuSans', bold: 'DejaVuSansBold', mono: 'DejaVuSansMono', cjk: 'NotoSansSC' } as const;
export type Face = (typeof FACE)[keyof typeof FACE];

/**
 * Which faces to try for a character, in order: the run's own face first, then the others that may have it. The
 * CJK face (Noto Sans SC) comes last everywhere: DejaVu draws what it has, Noto the ideographs and kana it lacks.
 */
const FALLBACK: Record<RunStyle, readonly Face[]> = {
  body: [FACE.body, FACE.mono, FACE.cjk],
  bold: [FACE.bold, FACE.body, FACE.mono, FACE.cjk],
  mono: [FACE.mono, FACE.body, FACE.cjk],
};

/**
 * Characters DejaVu lacks and Noto Sans SC has: CJK punctuation, kana, bopomofo, CJK compatibility and enclosed
 * forms, the unified ideographs (and extension A), compatibility ideographs, full- and half-width forms. Text with
 * none of these never loads the 10 MB CJK face. Hangul syllables are not in Noto Sans SC (they stay U+FFFD).
 */
const CJK_TEXT = /[\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3200-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/** The text has a character only the CJK face draws. */
export function needsCjkFace(text: string): boolean {
  return CJK_TEXT.test(text);
}

/** Drawn in place of a character none of the embedded faces has (DejaVu has U+FFFD): visible, never an empty box. */
export const REPLACEMENT = '\uFFFD';

/** One stretch of a line drawn in one face. */
export interface Piece {
  text: string;
  face: Face;
  size: number;
  width: number;
  link?: string;
}
export interface Line {
  pieces: Piece[];
  width: number;
}

interface TtfMetrics {
  characterToGlyph(code: number): number;
  widthOfGlyph(glyph: number): number;
}

/** Joins neighbouring pieces of one face and link: one text operation each, and words that extract as one string. */
function merge(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const last = out.at(-1);
    if (last && last.face === p.face && last.link === p.link && last.size === p.size) {
      last.text += p.text;
      last.width += p.width;
    } else out.push({ ...p });
  }
  return out;
}

export class TextKit {
  private readonly metrics = new Map<Face, TtfMetrics>();
  /** FALLBACK narrowed to the faces this document registered. */
  private readonly fallback: Record<RunStyle, readonly Face[]>;
  /** Per face: width at size 1 by UTF-16 code (NaN = not measured yet). Typed arrays: no key strings to build. */
  private readonly unitWidth = new Map<Face, Float64Array>();
  /** Per run style: index into FALLBACK[style] + 1 of the face drawing a code (0 = not looked up, -1 = none). */
  private readonly faceOf = new Map<RunStyle, Int8Array>();

  constructor(doc: jsPDF, faces: readonly Face[] = [FACE.body, FACE.bold, FACE.mono]) {
    const has = (f: Face) => faces.includes(f);
    this.fallback = { body: FALLBACK.body.filter(has), bold: FALLBACK.bold.filter(has), mono: FALLBACK.mono.filter(has) };
    for (const face of faces) {
      doc.setFont(face, 'normal');
      // jspdf types the parsed font as `any`; read only the two lookups used here. Its glyph widths are in
      // thousandths of the font size.
      const meta = doc.getFont().metadata as TtfMetrics;
      this.metrics.set(face, {
        characterToGlyph: (code) => meta.characterToGlyph(code),
        widthOfGlyph: (glyph) => meta.widthOfGlyph(glyph) / 1000,
      });
      this.unitWidth.set(face, new Float64Array(0x10000).fill(Number.NaN));
    }
    for (const style of Object.keys(this.fallback) as RunStyle[]) this.faceOf.set(style, new Int8Array(0x10000));
  }

  /** The face that draws `ch` (one UTF-16 unit) for a run of `style`, or null when no embedded face has it. */
  private pickFace(ch: string, style: RunStyle): Face | null {
    const code = ch.charCodeAt(0);
    const table = this.faceOf.get(style)!;
    let at = table[code]!;
    if (at === 0) {
      at = this.fallback[style].findIndex((f) => this.metrics.get(f)!.characterToGlyph(code) !== 0) + 1 || -1;
      table[code] = at;
    }
    return at > 0 ? this.fallback[style][at - 1]! : null;
  }

  /** Width of one character at size 1 in `face`. */
  private charWidth(ch: string, face: Face): number {
    const code = ch.charCodeAt(0);
    const table = this.unitWidth.get(face)!;
    let w = table[code]!;
    if (Number.isNaN(w)) {
      const m = this.metrics.get(face)!;
      w = m.widthOfGlyph(m.characterToGlyph(code));
      table[code] = w;
    }
    return w;
  }

  /**
   * Splits text into pieces of one face each, choosing per character. Characters outside the Basic Multilingual
   * Plane (emoji) and characters no face has become U+FFFD: jspdf encodes text by UTF-16 unit, so they could
   * only ever draw as missing-glyph boxes.
   */
  pieces(text: string, style: RunStyle, size: number, link?: string): Piece[] {
    const out: Piece[] = [];
    for (const cp of text) {
      let ch = cp.length > 1 ? REPLACEMENT : cp;
      let face = this.pickFace(ch, style);
      if (face === null) {
        ch = REPLACEMENT;
        face = this.fallback[style][0]!;
      }
      const w = this.charWidth(ch, face) * size;
      const last = out.at(-1);
      if (last && last.face === face) {
        last.text += ch;
        last.width += w;
      } else {
        out.push(link === undefined ? { text: ch, face, size, width: w } : { text: ch, face, size, width: w, link });
      }
    }
    return out;
  }

  /** Word-wraps runs into lines no wider than `maxWidth` (a word longer than a line is broken between characters). */
  wrap(runs: readonly Run[], size: number, maxWidth: number): Line[] {
    const lines: Line[] = [];
    let line: Piece[] = [];
    let width = 0;
    let space: Piece[] = [];
    let spaceWidth = 0;
    const flush = () => {
      lines.push({ pieces: merge(line), width });
      line = [];
      width = 0;
      space = [];
      spaceWidth = 0;
    };
    const place = (word: Piece[], w: number) => {
      if (line.length > 0 && width + spaceWidth + w > maxWidth) flush();
      else if (line.length > 0) {
        line.push(...space);
        width += spaceWidth;
      }
      space = [];
      spaceWidth = 0;
      if (w <= maxWidth) {
        line.push(...word);
        width += w;
        return;
      }
      // Longer than a whole line: break it between characters.
      for (const piece of word) {
        for (const ch of piece.text) {
          const cw = this.charWidth(ch, piece.face) * piece.size;
          if (width + cw > maxWidth && line.length > 0) flush();
          line.push({ ...piece, text: ch, width: cw });
          width += cw;
        }
      }
    };
    for (const run of runs) {
      for (const token of run.text.split(/(\n|[^\S\n]+)/)) {
        if (token === '') continue;
        if (token === '\n') {
          flush();
          continue;
        }
        const ps = this.pieces(/\s/.test(token[0]!) ? ' ' : token, run.style, size, run.link);
        const w = ps.reduce((sum, p) => sum + p.width, 0);
        if (/\s/.test(token[0]!)) {
          if (line.length > 0) {
            space = ps;
            spaceWidth = w;
          }
        } else {
          place(ps, w);
        }
      }
    }
    if (line.length > 0 || lines.length === 0) flush();
    return lines;
  }

  /** Hard-wraps one line of code (spaces kept) into segments no wider than `maxWidth`. */
  wrapCode(text: string, size: number, maxWidth: number): Line[] {
    const pieces = this.pieces(text.replace(/\t/g, '    '), 'mono', size);
    const lines: Line[] = [];
    let line: Piece[] = [];
    let width = 0;
    for (const piece of pieces) {
      let part = '';
      let partWidth = 0;
      for (const ch of piece.text) {
        const cw = this.charWidth(ch, piece.face) * size;
        if (width + partWidth + cw > maxWidth && (line.length > 0 || part !== '')) {
          if (part !== '') line.push({ ...piece, text: part, width: partWidth });
          lines.push({ pieces: line, width: width + partWidth });
          line = [];
          width = 0;
          part = '';
          partWidth = 0;
        }
        part += ch;
        partWidth += cw;
      }
      if (part !== '') line.push({ ...piece, text: part, width: partWidth });
      width += partWidth;
    }
    lines.push({ pieces: line, width });
    return lines;
  }
}
