/**
 * A projection (LiveStore calls it a materializer): a pure function from one event to the writes it causes on the
 * read-model tables the projection owns. It never reads state; everything it needs is in the event.
 *
 * `version` is bumped whenever `apply` changes meaning: the worker then rebuilds the projection's tables from the
 * log (src/worker/log.ts ensureProjectionsCurrent). A projection writes only to its own `tables`; rebuilding
 * clears exactly those.
 */
import type { NewEvent, StoredEvent } from '../events/catalogue';
import type { ChatPart } from '../protocol/api';
import type { TableName, Write } from './writes';

export type ProjectedEvent = StoredEvent | NewEvent;

export interface Projection {
  readonly name: string;
  readonly version: number;
  readonly tables: readonly TableName[];
  apply(event: ProjectedEvent): Write[];
}

/** The text of a prompt: a string as is, or the text parts of a multi-part prompt joined by a space. */
export function promptText(prompt: string | ChatPart[]): string {
  if (typeof prompt === 'string') return prompt;
  let out = '';
  for (const part of prompt) {
    if (part.type !== 'text') continue;
    out = out === '' ? part.text : `${out} ${part.text}`;
  }
  return out;
}

/** The first `n` characters (code points, so a surrogate pair is never cut) of `text`. */
export function firstChars(text: string, n: number): string {
  if (text.length <= n) return text;
  const head = text.slice(0, n);
  if (!SURROGATE.test(head)) return head; // common case: n code units are n characters
  let i = 0;
  let count = 0;
  while (i < text.length && count < n) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
    count++;
  }
  return text.slice(0, i);
}
const SURROGATE = /[\uD800-\uDFFF]/;

/** Length of the conversation preview (latestMessage). */
export const LATEST_MESSAGE_CHARS = 100;
