/**
 * Splits Markdown into top-level blocks, so that a streaming reply re-parses only its last, growing block: the
 * blocks before it are finished and their rendered trees are reused. Pure, so it is unit-tested.
 *
 * A block ends at a blank line, except inside a fenced code block (``` or ~~~) or a $$ math block, and except
 * when the next line is indented by two spaces or more, or a tab (a list item's continuation, or indented code,
 * belongs to what precedes it). One leading space continues nothing (list content starts at column 2 or later,
 * indented code at 4): models often start a paragraph with " word", and such a reply must still split.
 * Splitting there never changes how a block renders on its own, for the Markdown models write; link reference
 * definitions and footnotes that point across blocks are the known exception (a finished message is rendered
 * whole, so they resolve once the reply ends).
 */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const MATH_FENCE = /^ {0,3}\$\$/;
/** A line that continues the block before a blank line: indented by 2 spaces or more, or a tab. */
const CONTINUATION = /^(?: {2}|\t)/;

export function splitBlocks(text: string): string[] {
  const lines = text.split('\n');
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  let math = false;
  const flush = () => {
    if (current.length > 0) blocks.push(current.join('\n'));
    current = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (fence !== null) {
      current.push(line);
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1]) fence = null;
      continue;
    }
    if (math) {
      current.push(line);
      if (line.includes('$$')) math = false;
      continue;
    }
    if (line.trim() === '') {
      const next = lines[i + 1];
      // A blank line before an indented line (or at the very end) does not end the block.
      if (next !== undefined && next.trim() !== '' && !CONTINUATION.test(next) && current.length > 0) {
        flush();
        continue;
      }
      current.push(line);
      continue;
    }
    const open = FENCE.exec(line);
    if (open) fence = open[1] as string;
    else if (MATH_FENCE.test(line) && (line.trim() === '$$' || !line.trim().slice(2).includes('$$'))) math = true;
    current.push(line);
  }
  flush();
  return blocks;
}
