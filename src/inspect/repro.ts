/**
 * A repro log for one conversation: the events that change it (by each event's declared `touches`) and every
 * global event (preferences, library, folders, money: they name no conversation and may shape what it shows),
 * in log order. Folding the trimmed log gives the same state of that conversation as folding the whole log
 * (conversationState); the tests check exactly that. Redaction replaces the user's words (message text, names,
 * instructions) with placeholder letters of the same length, so the state keeps its shape. Pure.
 */
import { byTimestampThenId } from '../projections/fold';
import type { ProjectedEvent } from '../projections/projection';
import type { QueueEntry } from '../projections/queue';
import type { ConversationFolderRow, ConversationRow, MessageRow } from '../events/model';
import type { LogState } from './state';
import { slugsOf } from './state';

/** The events a repro of conversation `slug` keeps, in order. */
export function trimLog<E extends ProjectedEvent>(events: readonly E[], slug: string): E[] {
  const out: E[] = [];
  for (const e of events) {
    const slugs = slugsOf(e);
    if (slugs.length === 0 || slugs.includes(slug)) out.push(e);
  }
  return out;
}

/**
 * The events a shared copy of conversation `slug` keeps: only those that change it, none of the global ones
 * (preferences, the library, folders, money are the sharer's own and shape nothing its messages show). Folding
 * them gives the same conversation row and messages as the whole log (tests/unit/inspect/share-log.test.ts).
 */
export function shareLog<E extends ProjectedEvent>(events: readonly E[], slug: string): E[] {
  return events.filter((e) => slugsOf(e).includes(slug));
}

/** Whether any event of the log changes conversation `slug`. */
export function mentionsConversation(events: readonly ProjectedEvent[], slug: string): boolean {
  return events.some((e) => slugsOf(e).includes(slug));
}

/** One conversation as a state shows it: its row, its messages (display order), its folder links and its queue. */
export interface ConversationState {
  conversation: ConversationRow | null;
  messages: MessageRow[];
  folders: ConversationFolderRow[];
  queue: readonly QueueEntry[];
}

export function conversationState(state: LogState, slug: string): ConversationState {
  const conversation = state.tables.rows('conversations').find((c) => c.slug === slug) ?? null;
  const messages = [...state.tables.map('messages').values()].filter((m) => m.conversationSlug === slug).sort(byTimestampThenId);
  const id = conversation?.id;
  return {
    conversation,
    messages,
    folders: id === undefined ? [] : state.tables.rows('conversationFolders').filter((r) => r.conversationId === id),
    queue: state.queue.get(slug) ?? [],
  };
}

/** Payload fields holding the user's or a model's words (strings under them, at any depth, are redacted). */
const TEXT_FIELDS: ReadonlySet<string> = new Set(['prompt', 'text', 'thinking', 'continuedFrom', 'latestMessage', 'name', 'instructions', 'content', 'title', 'query', 'snippet']);

/**
 * `text` with every character but whitespace and ASCII punctuation replaced by 'x' (per UTF-16 unit, so the
 * length is the same and truncation, previews and offsets behave as with the original).
 */
export function redactText(text: string): string {
  return text.replace(/[^\s!-/:-@[-`{-~]/g, 'x');
}

function redactValue(value: unknown, underText: boolean): unknown {
  if (typeof value === 'string') return underText ? redactText(value) : value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, underText));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Inside a text field (a multi-part prompt) only the text strings change: part types and urls keep their role.
    out[k] = k === 'type' || k === 'url' ? v : redactValue(v, TEXT_FIELDS.has(k) || (underText && k !== 'type'));
  }
  return out;
}

/** The event with the words in its payload replaced (same lengths); envelope and structure unchanged. */
export function redactEvent<E extends ProjectedEvent>(event: E): E {
  return { ...event, payload: redactValue(event.payload, false) } as E;
}
