/**
 * fold: replay events through the projections into an in-memory store. The same projection code runs here (Node,
 * vitest, replay CLI) and in the worker's append path, so fold(log) is what the local database holds.
 */
import type { ConversationRow, MessageRow } from '../events/model';
import { MemoryStore } from './memory-store';
import { writerDispatchOf } from './projection';
import type { ProjectedEvent, Projection } from './projection';
import { projections as defaultProjections } from './registry';

/**
 * Apply `events` in order to `store` (mutating it) and return it. Each event goes only to the writers that handle
 * its type (one lookup), in projection order, and they write into the store directly.
 */
export function foldInto(
  store: MemoryStore,
  events: Iterable<ProjectedEvent>,
  projections: readonly Projection[] = defaultProjections,
): MemoryStore {
  const dispatch = writerDispatchOf(projections);
  for (const event of events) {
    const list = dispatch.get(event.type);
    if (list === undefined) continue;
    for (let i = 0; i < list.length; i++) list[i]!(event.payload, event, store);
  }
  return store;
}

/** Replay `events` from empty read models. */
export function fold(events: Iterable<ProjectedEvent>, projections: readonly Projection[] = defaultProjections): MemoryStore {
  return foldInto(new MemoryStore(), events, projections);
}

export interface ConversationWithMessages {
  conversation: ConversationRow;
  /** In display order: timestamp, then id. */
  messages: MessageRow[];
}

/** Plain read models of a store: conversations (most recently updated first) with their messages. */
export interface ReadModels {
  conversations: ConversationWithMessages[];
  /** Messages whose conversation is not in the store. */
  orphanMessages: MessageRow[];
}

export function byTimestampThenId(a: MessageRow, b: MessageRow): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

export function readModels(store: MemoryStore): ReadModels {
  const bySlug = new Map<string, MessageRow[]>();
  for (const m of store.map('messages').values()) {
    let list = bySlug.get(m.conversationSlug);
    if (list === undefined) bySlug.set(m.conversationSlug, (list = []));
    list.push(m);
  }
  const conversations: ConversationWithMessages[] = [];
  for (const c of store.rows('conversations')) {
    const messages = (bySlug.get(c.slug) ?? []).sort(byTimestampThenId);
    bySlug.delete(c.slug);
    conversations.push({ conversation: c, messages });
  }
  conversations.sort((a, b) => b.conversation.updatedAt - a.conversation.updatedAt || a.conversation.id - b.conversation.id);
  const orphanMessages = [...bySlug.values()].flat().sort(byTimestampThenId);
  return { conversations, orphanMessages };
}
