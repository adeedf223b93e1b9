/**
 * What an appended event changes, for the live queries: which conversations' pages must reload and whether the
 * conversation list must. Each event's declaration says it (`touches`, src/events/define.ts).
 */
import { touchesOf } from '../events/catalogue';
import type { NewEvent } from '../events/catalogue';

export interface Change {
  /** Everything may have changed (an imported log): every query reloads. */
  all: boolean;
  /** The conversation list (names, order, latest message) changed. */
  conversations: boolean;
  /** Conversations whose pages changed. */
  slugs: Set<string>;
}

export function changeOf(events: readonly NewEvent[]): Change {
  const change: Change = { all: false, conversations: false, slugs: new Set() };
  for (const e of events) {
    const touch = touchesOf(e);
    if (touch.list) change.conversations = true;
    for (const s of touch.slugs) change.slugs.add(s);
  }
  return change;
}

export const EVERYTHING_CHANGED: Change = { all: true, conversations: true, slugs: new Set() };
