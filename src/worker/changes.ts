/**
 * What an appended event changes, for the live queries: which conversations' pages must reload and whether the
 * conversation list must. One entry per event type (a new event type that forgets to say is a type error).
 */
import type { EventPayloads, EventType, NewEvent } from '../events/catalogue';

export interface Change {
  /** Everything may have changed (an imported log): every query reloads. */
  all: boolean;
  /** The conversation list (names, order, latest message) changed. */
  conversations: boolean;
  /** Conversations whose pages changed. */
  slugs: Set<string>;
}

interface Touch {
  /** The conversation list changes too. */
  list: boolean;
  slugs: readonly string[];
}

const CHANGES: { [K in EventType]: (payload: EventPayloads[K]) => Touch } = {
  'conversation.created': (p) => ({ list: true, slugs: [p.conversation.slug] }),
  'message.added': (p) => ({ list: true, slugs: [p.message.conversationSlug] }),
  'reply.started': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  // A checkpoint saves text the page already shows live (the reply is running here): no page reloads for it.
  'reply.checkpointed': () => ({ list: false, slugs: [] }),
  'reply.completed': (p) => ({ list: true, slugs: [p.conversationSlug] }),
  'reply.failed': (p) => ({ list: true, slugs: [p.conversationSlug] }),
  'reply.interrupted': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'conversation.renamed': (p) => ({ list: true, slugs: [p.slug] }),
  'conversation.deleted': (p) => ({ list: true, slugs: [p.slug] }),
  'conversation.restored': (p) => ({ list: true, slugs: [p.slug] }),
  'conversation.purged': (p) => ({ list: true, slugs: [p.slug] }),
  'conversation.pinned': (p) => ({ list: true, slugs: [p.slug] }),
  'conversation.unpinned': (p) => ({ list: true, slugs: [p.slug] }),
  'conversation.instructionsSet': (p) => ({ list: false, slugs: [p.slug] }),
  // Presets are not conversation data: the instructions query follows these events itself.
  'instruction.created': () => ({ list: false, slugs: [] }),
  'instruction.updated': () => ({ list: false, slugs: [] }),
  'instruction.deleted': () => ({ list: false, slugs: [] }),
  'queue.messageAdded': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'queue.messageRemoved': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'message.branched': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'branch.activated': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'message.deleted': (p) => ({ list: true, slugs: [p.conversationSlug] }),
  'message.retried': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'reply.continued': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'conversation.duplicated': (p) => ({ list: true, slugs: [p.conversation.slug] }),
  // Preferences are no conversation's data: the engine's preferences$ follows these events itself.
  'preferences.changed': () => ({ list: false, slugs: [] }),
  'image.generated': (p) => ({ list: true, slugs: [p.conversationSlug] }),
  'image.answered': (p) => ({ list: true, slugs: [p.conversationSlug] }),
  // Favourites and model settings are no conversation's data: the gallery and settings queries follow them.
  'image.favourited': () => ({ list: false, slugs: [] }),
  'video.requested': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'video.statusChanged': (p) => ({ list: true, slugs: [p.conversationSlug] }),
  'modelSettings.changed': () => ({ list: false, slugs: [] }),
  // Payments are no conversation's data: the money room follows these events itself.
  'payment.started': () => ({ list: false, slugs: [] }),
  'payment.settled': () => ({ list: false, slugs: [] }),
  // The library queries follow library events themselves (src/worker/queries/library.ts).
  'library.itemAdded': () => ({ list: false, slugs: [] }),
  'library.itemProgressed': () => ({ list: false, slugs: [] }),
  'library.itemCompleted': () => ({ list: false, slugs: [] }),
  'library.itemFailed': () => ({ list: false, slugs: [] }),
  'library.itemDeleted': () => ({ list: false, slugs: [] }),
  'library.itemLinked': () => ({ list: false, slugs: [] }),
  'library.messageLinked': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'message.imagesExtracted': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  'library.itemUnlinked': () => ({ list: false, slugs: [] }),
  'message.webSearched': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  // The scratchpad is beside the conversation, not in it: the scratchpad query follows these events itself.
  'scratchpad.entryAdded': () => ({ list: false, slugs: [] }),
  'scratchpad.entryEdited': () => ({ list: false, slugs: [] }),
  'scratchpad.entryDeleted': () => ({ list: false, slugs: [] }),
  'speech.generated': (p) => ({ list: false, slugs: [p.conversationSlug] }),
  // Folders: the list shows each conversation's folder (the folders query follows these events itself).
  'folder.created': () => ({ list: false, slugs: [] }),
  'folder.renamed': () => ({ list: false, slugs: [] }),
  'folder.deleted': () => ({ list: true, slugs: [] }),
  'conversation.movedToFolder': () => ({ list: true, slugs: [] }),
  // The updates feed is no conversation's data: the updates query follows these events itself.
  'updates.read': () => ({ list: false, slugs: [] }),
};

export function changeOf(events: readonly NewEvent[]): Change {
  const change: Change = { all: false, conversations: false, slugs: new Set() };
  for (const e of events) {
    const touch = (CHANGES[e.type] as (p: NewEvent['payload']) => Touch)(e.payload);
    if (touch.list) change.conversations = true;
    for (const s of touch.slugs) change.slugs.add(s);
  }
  return change;
}

export const EVERYTHING_CHANGED: Change = { all: true, conversations: true, slugs: new Set() };
