/**
 * Text tidying shared by the page reader (./page.ts, in the parse threads) and the search providers (on the event
 * loop): its own module so that the event loop does not load the page reader's libraries (linkedom, Readability).
 */

/**
 * Collapses runs of spaces and tabs, trims lines and keeps at most one blank line between paragraphs. One pass by
 * character code (no regex that can backtrack on a hostile page). With `limit`, it stops once the result is longer
 * than that: a caller that keeps only a prefix does not pay for the rest of a 5 MB page (over a second of work).
 */
export function tidyText(text: string, limit = Number.POSITIVE_INFINITY): string {
  let out = '';
  let pendingSpace = false;
  let newlines = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      newlines++;
      pendingSpace = false;
    } else if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11 || c === 0xa0) {
      pendingSpace = out.length > 0 && newlines === 0;
    } else {
      if (newlines > 0 && out.length > 0) out += newlines > 1 ? '\n\n' : '\n';
      else if (pendingSpace) out += ' ';
      newlines = 0;
      pendingSpace = false;
      out += text[i];
      if (out.length > limit) break;
    }
  }
  return out;
}
