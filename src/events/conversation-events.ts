/**
 * Events of conversation management, instruction presets, preferences, the message queue and the scratchpad.
 * Listed in the shared catalogue (./catalogue.ts), which re-exports them. Pure: no DOM, no clock.
 */
import type { InstructionRow, QueuedMessage, ScratchpadEntryRow } from './model';
import type { Preferences } from '../protocol/preferences';

export interface ConversationRenamedV1 {
  slug: string;
  name: string;
  source: 'user' | 'generated';
  at: number;
}

/**
 * A conversation was deleted. It leaves the list at once but keeps its messages until `conversation.purged`
 * (appended when the undo window has passed), so `conversation.restored` can bring it back whole.
 */
export interface ConversationDeletedV1 {
  slug: string;
  at: number;
}
export interface ConversationRestoredV1 {
  slug: string;
  at: number;
}
/** A deleted conversation's undo window passed: the row and its messages are removed. */
export interface ConversationPurgedV1 {
  slug: string;
  at: number;
}
export interface ConversationPinnedV1 {
  slug: string;
  at: number;
}
export interface ConversationUnpinnedV1 {
  slug: string;
  at: number;
}
/** The conversation's system prompt (its `instructions` field); '' = the default. */
export interface ConversationInstructionsSetV1 {
  slug: string;
  instructions: string;
  at: number;
}

/** A saved instruction preset (the `instructions` table). */
export interface InstructionCreatedV1 {
  instruction: InstructionRow;
}
export interface InstructionUpdatedV1 {
  id: number;
  name: string;
  instructions: string;
  at: number;
}
export interface InstructionDeletedV1 {
  id: number;
  at: number;
}

// ---- preferences (src/worker/commands/preferences.ts) ----

/** Some preferences changed: only the changed fields, each valid (src/protocol/preferences.ts PREFERENCE_CHECKS). */
export interface PreferencesChangedV1 {
  changes: Partial<Preferences>;
  at: number;
}

/**
 * A message was queued while a reply was generating (spec 000 section 4, pending flag): it is sent when the
 * conversation's replies end. `model` and `extraModels` are what it will be sent with.
 */
export interface QueueMessageAddedV1 {
  conversationSlug: string;
  message: QueuedMessage;
  model: string;
  extraModels: string[];
  at: number;
}
/**
 * v2: the queued message also keeps the composer's web search (the "Web search" switch and its depth), so that it
 * searches the web when it is sent later as it would have when sent at once. v1 events upcast with `null` (off).
 */
export interface QueueMessageAddedV2 extends QueueMessageAddedV1 {
  webSearch: { depth: 'standard' | 'deep' } | null;
}
/** A queued message left the queue: removed by the user, or taken to be sent. */
export interface QueueMessageRemovedV1 {
  conversationSlug: string;
  id: string;
  reason: 'removed' | 'submitted';
  at: number;
}

// ---- the scratchpad (spec 000 section 3 scratchpadEntries; src/worker/commands/scratchpad.ts) ----

/** An entry was added to a conversation's scratchpad: a note, a message's text, code or a code run's output. */
export interface ScratchpadEntryAddedV1 {
  entry: ScratchpadEntryRow;
}
/** An entry's text was changed (its type, timestamp and conversation stay). */
export interface ScratchpadEntryEditedV1 {
  id: number;
  conversationSlug: string;
  content: string;
  at: number;
}
export interface ScratchpadEntryDeletedV1 {
  id: number;
  conversationSlug: string;
  at: number;
}
