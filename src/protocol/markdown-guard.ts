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
 *    before a container marker is cut to `indentColumns`: lists and quotes nest at most about 30 deep;
 *  - a run of `*` or `_` longer than `emphasisRun` is escaped (shown as written), except a line that is only a
 *    thematic break;
 *  - in one block (lines between blank lines), inline delimiters of one kind beyond `delimitersPerBlock` (`*`,
 *    `_`, `~`, backtick and `$` runs, `[`, `]`, `<`) are escaped, and `|` beyond `pipesPerLine` on a line.
 * Replies people write never reach these limits, so their text is left exactly as it is (`tamed` false).
 */

export const MARKDOWN_LIMITS = {
  /** Quote and list markers one line may open. */
  markersPerLine: 12,
  /** Columns of indentation before a quote or list marker. */
  indentColumns: 40,
  /** Longest run of `*` or `_` read as emphasis. */
  emphasisRun: 8,
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

interface Prefix {
  /** Index in the line where the content after the containers starts. */
  end: number;
  markers: number;
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
  const prefix: Prefix = { end: i, markers, indent: widest, rewritten: null };
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

/**
 * Flattens what would make Markdown nest too deep or parse too slowly (see the top of this file). Linear in the
 * text's length.
 */
export function tameMarkdown(text: string): TamedMarkdown {
  const { emphasisRun, delimitersPerBlock, pipesPerLine } = MARKDOWN_LIMITS;
  const lines = text.split('\n');
  let tamed = false;
  let delimiters = 0;
  let deepestLine = 0;
  let widestIndent = 0;
  let fence: { char: string; length: number } | null = null;
  const counts = new Map<string, number>();
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] as string;
    if (fence !== null) {
      const close = fenceAt(line);
      if (close && close.char === fence.char && close.length >= fence.length && close.rest.trim() === '') fence = null;
      continue;
    }
    if (line.trim() === '') {
      counts.clear();
      continue;
    }
    // Only a fence in the first column is surely not inside a quote or list item (those need a marker or an
    // indent on every line), so only its lines are left alone.
    const open = line.startsWith('```') || line.startsWith('~~~') ? fenceAt(line) : null;
    if (open && !(open.char === '`' && open.rest.includes('`'))) {
      fence = { char: open.char, length: open.length };
      counts.clear();
      continue;
    }
    const prefix = containerPrefix(line);
    if (prefix.markers > deepestLine) deepestLine = prefix.markers;
    if (prefix.indent > widestIndent) widestIndent = prefix.indent;
    const breakLine = isThematicBreak(line);
    let content = '';
    let changed = prefix.rewritten !== null;
    let pipes = 0;
    let i = prefix.end;
    let from = i;
    // Copies the content, escaping what is over a limit; `content` is only built once something changes.
    const flush = (to: number) => {
      if (changed) content += line.slice(from, to);
      from = to;
    };
    while (i < line.length) {
      const c = line[i] as string;
      if (c === '\\' && i + 1 < line.length && ESCAPABLE.test(line[i + 1] as string)) {
        i += 2;
        continue;
      }
      if (c === '|') {
        pipes++;
        if (pipes > pipesPerLine) {
          if (!changed) {
            changed = true;
            content = line.slice(prefix.end, i);
            from = i;
          }
          flush(i);
          content += '\\|';
          from = i + 1;
        }
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
      const count = (counts.get(c) ?? 0) + 1;
      counts.set(c, count);
      const tooLong = (c === '*' || c === '_') && run > emphasisRun && !breakLine;
      if (tooLong || count > delimitersPerBlock) {
        if (!changed) {
          changed = true;
          content = line.slice(prefix.end, i);
          from = i;
        }
        flush(i);
        content += `\\${c}`.repeat(run);
        from = end;
      }
      i = end;
    }
    if (!changed) continue;
    flush(line.length);
    tamed = true;
    // The content keeps the whitespace after its last marker, so the rebuilt prefix joins it as before.
    lines[n] = (prefix.rewritten ?? line.slice(0, prefix.end)) + content;
  }
  return { text: tamed ? lines.join('\n') : text, tamed, delimiters, deepestLine, widestIndent };
}
