/**
 * What is spoken of a message (spec 001 section 4, "Audio playback"): thinking content stripped, Markdown reduced
 * to the words a reader would say, then split into chunks of at most 3900 characters on sentence boundaries.
 * Everything here is linear in the text's length (no regex that backtracks over the whole text), and counts
 * characters as code points: a chunk never splits a surrogate pair, so emoji and CJK text stay whole.
 */
import { SPEECH_CHUNK_CHARS } from '../../../protocol/speech-catalogue';

const OPEN = /<(think|thinking|reasoning)>/gi;

/** Removes <think>…</think> blocks (and <thinking>, <reasoning>); an unclosed one hides the rest of the text. */
export function stripThinking(text: string): string {
  let out = '';
  let at = 0;
  OPEN.lastIndex = 0;
  for (let m = OPEN.exec(text); m !== null; m = OPEN.exec(text)) {
    out += text.slice(at, m.index);
    const close = new RegExp(`</${m[1]}>`, 'gi');
    close.lastIndex = m.index + m[0].length;
    const end = close.exec(text);
    if (!end) return out;
    at = end.index + end[0].length;
    OPEN.lastIndex = at;
  }
  return out + text.slice(at);
}

/** Markdown to the words that are read: fences, heading marks, emphasis, link targets and table pipes go. */
export function speakable(markdown: string): string {
  return stripThinking(markdown)
    .split('\n')
    .filter((line) => !/^\s*(```|~~~)/.test(line))
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, '')
        .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+/, '')
        .replace(/^\s*>\s?/, '')
        .replace(/!?\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g, '$1')
        .replace(/[*_~`]+/g, '')
        .replace(/\s*\|\s*/g, ' ')
        .replace(/^[\s:-]+$/, ''),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？', '…', '\n']);
const CLOSERS = new Set(['"', "'", ')', ']', '”', '’', '»', '」', '』']);
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || ch === '\u3000';

/** UTF-16 index after `count` code points from `from` (or the text's end). */
function advance(text: string, from: number, count: number): number {
  let i = from;
  for (let n = 0; n < count && i < text.length; n++) i += isHigh(text.charCodeAt(i)) && i + 1 < text.length ? 2 : 1;
  return i;
}

/** Where a chunk ending before `limit` (exclusive) should end: after a sentence, else a space, else `limit`. */
function cutPoint(text: string, start: number, limit: number): number {
  let space = -1;
  for (let i = limit - 1; i > start; i--) {
    const ch = text[i] as string;
    if (SENTENCE_END.has(ch)) {
      // A sentence end counts when followed by a space, a closing quote or bracket then a space, or CJK punctuation.
      let j = i + 1;
      while (j < limit && CLOSERS.has(text[j] as string)) j++;
      if (j >= text.length || isSpace(text[j] as string) || ch === '。' || ch === '！' || ch === '？' || ch === '\n') return j;
    }
    if (space < 0 && isSpace(ch)) space = i;
  }
  return space > start ? space : limit;
}

/**
 * The first chunk of a reply is at most this long (docs/decisions.md): it is made first and playback starts when it
 * arrives, so a short one starts the audio sooner; the rest follow at the spec's 3900 while it plays.
 */
export const FIRST_SPEECH_CHUNK_CHARS = 1000;

/**
 * Splits the text into chunks of at most `max` characters (code points), on sentence boundaries where it can; the
 * first chunk at most `firstMax`.
 */
export function splitSpeech(text: string, max: number = SPEECH_CHUNK_CHARS, firstMax: number = max): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    while (start < text.length && isSpace(text[start] as string)) start++;
    if (start >= text.length) break;
    const limit = advance(text, start, chunks.length === 0 ? Math.min(firstMax, max) : max);
    const end = limit >= text.length ? text.length : cutPoint(text, start, limit);
    const chunk = text.slice(start, end).trim();
    if (chunk !== '') chunks.push(chunk);
    start = end;
  }
  return chunks;
}

/** The chunks the speech pipeline asks for: a short first one, then at most 3900 characters each. */
export function speechChunks(text: string): string[] {
  return splitSpeech(text, SPEECH_CHUNK_CHARS, FIRST_SPEECH_CHUNK_CHARS);
}
