/**
 * Markdown from outside (model replies, imported logs) made safe to parse: a linear pass over the text that
 * flattens what would make the Markdown parser (micromark, under remark) nest thousands deep or work
 * quadratically, before it ever sees the text. Measured on the parser: 3,000 `>` on one line nest 3,000 block
 * quotes and overflow the stack in remark-gfm's tree walk; `- ` repeated 3,000 times the same with lists; 15,000 `_`
 * around a letter nest 7,500 emphasis levels; 20,000 unclosed `[x](` take seconds (every `]` looks back over all
 * the brackets before it); a list indented one level deeper on each of 1,000 lines takes minutes. Pure: the view,
 * its parse worker and the export worker all run it (docs/architecture.md, "Hostile Markdown").
 *
 * What is flattened (outside fenced code that starts in the first column, whose lines are never touched):
 *  - a line's block containers (`>` and list markers) beyond `markersPerLine` are dropped, its indentation
 *    before a container marker is cut to `indentColumns`: lists and quotes nest at most about 20 deep;
 *  - a block (lines between blank lines, a new bullet item or a heading) with a run of `*` or `_` longer than
 *    `emphasisRun` (a thematic break aside), with more than `delimitersPerBlock` inline delimiters of one kind
 *    (`*`, `_`, `~`, backtick and `$` runs, `[`, `]`, `<`), or a line of it with more than `pipesPerLine` table
 *    pipes, becomes a fenced code block: shown as written, read by the parser in linear time. (Escaping the
 *    excess instead would not do: thousands of backslash escapes in one paragraph are slow to parse too. A bullet
 *    item or a heading always starts a new paragraph; a numbered item or a quote line may continue the one before,
 *    so they do not start a new block.)
 * Replies people write never reach these limits, so their text is left exactly as it is (`tamed` false).
 */

export const MARKDOWN_LIMITS = {
  /** Quote and list markers one line may open. */
  markersPerLine: 8,
  /** Columns of indentation before a quote or list marker. */
  indentColumns: 24,
  /** Longest run of `*` or `_` read as emphasis. */
  emphasisRun: 32,
  /** Inline delimiters of one kind in one block. */
  delimitersPerBlock: 256,
  /** Table pipes on one line. */
  pipesPerLine: 128,
} as const;

export interface TamedMarkdown {
  /** The text to parse: the input itself when nothing had to be flattened. */
  text: string;
  /** Something was flattened: the input is hostile or broken Markdown. */
  tamed: boolean;
  /** Inline delimiters in the whole text (all kinds): how busy the text is for the parser. */
  delimiters: number;
  /** Most quote and list markers on one line. */
  deepestLine: number;
  /** Widest indentation before a quote or list marker, in columns. */
  widestIndent: number;
}

/** Delimiter kinds counted per block, by character. */
const KINDS = '*_~`$[]<';
const ESCAPABLE = /[!-/:-@[-`{-~]/;

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

/** A line that is only a thematic break (`***`, `- - -`, `___`): its marks are not emphasis. */
function isThematicBreak(line: string): boolean {
  return /^ {0,3}([*_-])(?:[ \t]*\1){2,}[ \t]*$/.test(line);
}

/** A fence opening or closing in the first three columns: its character and length, else null. */
function fenceAt(line: string): { char: string; length: number; rest: string } | null {
  const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!m) return null;
  const run = m[1] as string;
  return { char: run[0] as string, length: run.length, rest: m[2] as string };
}

/** A line that surely starts a new paragraph: a bullet item with words, or an ATX heading. */
function startsParagraph(line: string, prefix: { end: number; first: string }): boolean {
  if ((prefix.first === '-' || prefix.first === '+' || prefix.first === '*') && line.slice(prefix.end).trim() !== '') return true;
  return prefix.first === '' && /^ {0,3}#{1,6}(?:[ \t]|$)/.test(line);
}

interface Prefix {
  /** Index in the line where the content after the containers starts. */
  end: number;
  markers: number;
  /** The first marker ('' when none). */
  first: string;
  indent: number;
  /** The prefix rewritten within the limits, or null when it is within them already. */
  rewritten: string | null;
}

/** The quote and list markers (and the whitespace around them) at the start of a line. */
function containerPrefix(line: string): Prefix {
  const { markersPerLine, indentColumns } = MARKDOWN_LIMITS;
  let i = 0;
  let markers = 0;
  let column = 0;
  let widest = 0;
  let over = false;
  // Pieces of the prefix: whitespace (as columns) and markers (as written).
  const pieces: Array<{ space: number } | { marker: string }> = [];
  for (;;) {
    const spaceStart = i;
    let space = 0;
    while (i < line.length && isSpace(line[i])) {
      space += line[i] === '\t' ? 4 - ((column + space) % 4) : 1;
      i++;
    }
    const c = line[i];
    let marker = '';
    if (c === '>') marker = '>';
    else if ((c === '-' || c === '+' || c === '*') && (isSpace(line[i + 1]) || i + 1 === line.length)) marker = c;
    else if (c !== undefined && c >= '0' && c <= '9') {
      let j = i;
      while (j < line.length && j - i < 9 && (line[j] as string) >= '0' && (line[j] as string) <= '9') j++;
      if ((line[j] === '.' || line[j] === ')') && (isSpace(line[j + 1]) || j + 1 === line.length)) marker = line.slice(i, j + 1);
    }
    if (marker === '') {
      // Whitespace after the last marker belongs to the content (it may be an indented code block's).
      i = spaceStart;
      break;
    }
    if (space > 0) pieces.push({ space });
    column += space;
    if (column > widest) widest = column;
    if (column > indentColumns) over = true;
    pieces.push({ marker });
    markers++;
    if (markers > markersPerLine) over = true;
    column += marker.length;
    i += marker.length;
  }
  const first = pieces.find((p): p is { marker: string } => 'marker' in p)?.marker ?? '';
  const prefix: Prefix = { end: i, markers, first, indent: widest, rewritten: null };
  if (!over) return prefix;
  // Rebuild: at most `markersPerLine` markers, and whitespace cut so that no marker starts past `indentColumns`.
  let out = '';
  let col = 0;
  let kept = 0;
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p] as { space: number } | { marker: string };
    if ('space' in piece) {
      const next = pieces[p + 1];
      if (next === undefined || !('marker' in next) || kept >= markersPerLine) continue;
      const room = Math.max(kept > 0 ? 1 : 0, Math.min(piece.space, indentColumns - col));
      out += ' '.repeat(room);
      col += room;
    } else if (kept < markersPerLine) {
      // A marker right after another needs a space between them (`>` does not).
      if (kept > 0 && piece.marker !== '>' && !out.endsWith(' ')) {
        out += ' ';
        col++;
      }
      out += piece.marker;
      col += piece.marker.length;
      kept++;
    }
  }
  prefix.rewritten = out;
  return prefix;
}

/** Inline delimiters, backtick run and pipes seen in the block being read. */
interface BlockScan {
  /** Lines as read (verbatim) and as they will be parsed (containers flattened). */
  raw: string[];
  kept: string[];
  counts: Map<string, number>;
  longestBacktickRun: number;
  hostile: boolean;
}

function newBlock(): BlockScan {
  return { raw: [], kept: [], counts: new Map(), longestBacktickRun: 0, hostile: false };
}

/**
 * Flattens what would make Markdown nest too deep or parse too slowly (see the top of this file). Linear in the
 * text's length.
 */
export function tameMarkdown(text: string): TamedMarkdown {
  const { emphasisRun, delimitersPerBlock, pipesPerLine } = MARKDOWN_LIMITS;
  const lines = text.split('\n');
  const out: string[] = [];
  let tamed = false;
  let delimiters = 0;
  let deepestLine = 0;
  let widestIndent = 0;
  let fence: { char: string; length: number } | null = null;
  let block = newBlock();
  const endBlock = () => {
    if (block.raw.length === 0) return;
    if (block.hostile) {
      // Shown as written, in a fence longer than any backtick run inside (so nothing inside can close it).
      const mark = '`'.repeat(Math.max(3, block.longestBacktickRun + 1));
      out.push(`${mark}text`, ...block.raw, mark);
      tamed = true;
    } else out.push(...block.kept);
    block = newBlock();
  };
  for (const line of lines) {
    if (fence !== null) {
      out.push(line);
      const close = fenceAt(line);
      if (close && close.char === fence.char && close.length >= fence.length && close.rest.trim() === '') fence = null;
      continue;
    }
    if (line.trim() === '') {
      endBlock();
      out.push(line);
      continue;
    }
    // Only a fence in the first column is surely not inside a quote or list item (those need a marker or an
    // indent on every line), so only its lines are left alone.
    const open = line.startsWith('```') || line.startsWith('~~~') ? fenceAt(line) : null;
    if (open && !(open.char === '`' && open.rest.includes('`'))) {
      endBlock();
      fence = { char: open.char, length: open.length };
      out.push(line);
      continue;
    }
    const prefix = containerPrefix(line);
    if (startsParagraph(line, prefix)) endBlock();
    if (prefix.markers > deepestLine) deepestLine = prefix.markers;
    if (prefix.indent > widestIndent) widestIndent = prefix.indent;
    if (prefix.rewritten !== null) tamed = true;
    block.raw.push(line);
    // The content keeps the whitespace after its last marker, so the rebuilt prefix joins it as before.
    block.kept.push(prefix.rewritten === null ? line : prefix.rewritten + line.slice(prefix.end));
    const breakLine = isThematicBreak(line);
    let pipes = 0;
    let i = prefix.end;
    while (i < line.length) {
      const c = line[i] as string;
      if (c === '\\' && i + 1 < line.length && ESCAPABLE.test(line[i + 1] as string)) {
        i += 2;
        continue;
      }
      if (c === '|') {
        if (++pipes > pipesPerLine) block.hostile = true;
        i++;
        continue;
      }
      if (!KINDS.includes(c)) {
        i++;
        continue;
      }
      // A run of one delimiter character counts once (brackets and `<` one by one).
      let end = i + 1;
      if (c !== '[' && c !== ']' && c !== '<') while (end < line.length && line[end] === c) end++;
      const run = end - i;
      delimiters++;
      const count = (block.counts.get(c) ?? 0) + 1;
      block.counts.set(c, count);
      if (c === '`' && run > block.longestBacktickRun) block.longestBacktickRun = run;
      if (count > delimitersPerBlock || ((c === '*' || c === '_') && run > emphasisRun && !breakLine)) block.hostile = true;
      i = end;
    }
  }
  endBlock();
  return { text: tamed ? out.join('\n') : text, tamed, delimiters, deepestLine, widestIndent };
}

/**
 * How long parsing one text may take (in the view's parse worker, and per message in the PDF export's worker)
 * before the worker is ended and the text shown as plain text: a base, and more for a longer text (Markdown people
 * write parses in time linear in its length; what takes longer is hostile).
 */
export const MARKDOWN_PARSE_BUDGET = { baseMs: 1500, charsPerMs: 250 } as const;

export function markdownParseBudgetMs(text: string, budget: { baseMs: number; charsPerMs: number } = MARKDOWN_PARSE_BUDGET): number {
  return budget.baseMs + text.length / budget.charsPerMs;
}
