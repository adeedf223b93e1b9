/**
 * Events of conversation management, instruction presets, preferences, the message queue and the scratchpad.
 * Each is declared once in `conversationEvents` below (./define.ts); the catalogue (./catalogue.ts) joins it.
 * Pure: no DOM, no clock.
 */
import type { InstructionRow, QueuedMessage, ScratchpadEntryRow } from './model';
import { checkPreferenceChanges } from '../protocol/preferences';
import type { Preferences } from '../protocol/preferences';
import { checkShape, I, int, isObj, N, num, O, oneOf, S, str, strings } from './checks';
import type { Check, R, Shape } from './checks';
import { checked, defineEvent, NOTHING, page, pageAndList, shape, UpcastError } from './define';

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

// ---- preferences (src/worker/rooms/preferences/commands.ts) ----

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

// ---- the scratchpad (spec 000 section 3 scratchpadEntries; src/worker/rooms/scratchpad/commands.ts) ----

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

// ---- the declarations ----

const slugAt = { slug: str, at: num };
const slugAtOk = (p: unknown): p is R => O(p) && S(p.slug) && N(p.at);
const instructionShape: Shape = { id: int, name: str, instructions: str, createdAt: num, updatedAt: num };
const queuedMessageShape: Shape = { id: str, prompt: str, attachments: strings, scrapedUrls: strings, scrapedContent: Array.isArray, timestamp: num };
const searchDepth = oneOf('standard', 'deep');
const queuedWebSearch: Check = (v) => v === null || (isObj(v) && searchDepth(v.depth));
/** Types the scratchpad command makes; the log accepts any type name (adopted rows of the original app's). */
export const SCRATCHPAD_TYPES = ['note', 'message', 'code', 'output'] as const;
const scratchpadType: Check = (v) => typeof v === 'string' && v !== '';
const scratchpadEntryShape: Shape = { id: int, content: str, type: scratchpadType, timestamp: num, conversationSlug: str };

/** queue.messageAdded v1 (no web search kept) -> v2: the message was queued with web search off. */
function queueMessageAddedV1toV2(payload: unknown): QueueMessageAddedV2 {
  if (!isObj(payload)) throw new UpcastError('invalid-payload', 'queue.messageAdded v1: payload must be an object');
  return { ...(payload as unknown as QueueMessageAddedV1), webSearch: null };
}

export const conversationEvents = {
  /** A new name: typed by the user, or a generated title (at most 150 characters). */
  'conversation.renamed': defineEvent({
    version: 1,
    payload: shape<ConversationRenamedV1>({ ...slugAt, name: str, source: oneOf('user', 'generated') }, {
      test: (p) => slugAtOk(p) && S(p.name) && (p.source === 'user' || p.source === 'generated'),
    }),
    touches: (p) => pageAndList(p.slug),
  }),
  /** Deleted: hidden at once, restorable until purged (undo). */
  'conversation.deleted': defineEvent({
    version: 1,
    payload: shape<ConversationDeletedV1>(slugAt, { test: slugAtOk }),
    touches: (p) => pageAndList(p.slug),
  }),
  /** Undo: a deleted conversation is back, with its messages. */
  'conversation.restored': defineEvent({
    version: 1,
    payload: shape<ConversationRestoredV1>(slugAt, { test: slugAtOk }),
    touches: (p) => pageAndList(p.slug),
  }),
  /** The undo window (15 s) passed: the row and its messages go. */
  'conversation.purged': defineEvent({
    version: 1,
    payload: shape<ConversationPurgedV1>(slugAt, { test: slugAtOk }),
    touches: (p) => pageAndList(p.slug),
  }),
  /** Pinned conversations lead the list. */
  'conversation.pinned': defineEvent({
    version: 1,
    payload: shape<ConversationPinnedV1>(slugAt, { test: slugAtOk }),
    touches: (p) => pageAndList(p.slug),
  }),
  'conversation.unpinned': defineEvent({
    version: 1,
    payload: shape<ConversationUnpinnedV1>(slugAt, { test: slugAtOk }),
    touches: (p) => pageAndList(p.slug),
  }),
  'conversation.instructionsSet': defineEvent({
    version: 1,
    payload: shape<ConversationInstructionsSetV1>({ ...slugAt, instructions: str }, { test: (p) => slugAtOk(p) && S(p.instructions) }),
    touches: (p) => page(p.slug),
  }),
  // Presets are not conversation data: the instructions query follows these events itself.
  'instruction.created': defineEvent({
    version: 1,
    payload: shape<InstructionCreatedV1>({ instruction: isObj }, {
      nested: { instruction: instructionShape },
      test: (p) => {
        if (!O(p) || !O(p.instruction)) return false;
        const i = p.instruction;
        return I(i.id) && S(i.name) && S(i.instructions) && N(i.createdAt) && N(i.updatedAt);
      },
    }),
    touches: () => NOTHING,
  }),
  'instruction.updated': defineEvent({
    version: 1,
    payload: shape<InstructionUpdatedV1>({ id: int, name: str, instructions: str, at: num }, {
      test: (p) => O(p) && I(p.id) && S(p.name) && S(p.instructions) && N(p.at),
    }),
    touches: () => NOTHING,
  }),
  'instruction.deleted': defineEvent({
    version: 1,
    payload: shape<InstructionDeletedV1>({ id: int, at: num }, { test: (p) => O(p) && I(p.id) && N(p.at) }),
    touches: () => NOTHING,
  }),
  /** Only the fields that changed, each valid (PREFERENCE_CHECKS in src/protocol/preferences.ts). */
  'preferences.changed': defineEvent({
    version: 1,
    payload: checked<PreferencesChangedV1>(
      (p) => {
        const top = checkShape(p, { changes: isObj, at: num }, 'payload');
        if (top !== null) return top;
        const bad = checkPreferenceChanges((p as R).changes);
        return bad === null ? null : `payload.changes: ${bad}`;
      },
      (p) => O(p) && N(p.at) && checkPreferenceChanges(p.changes) === null,
    ),
    // Preferences are no conversation's data: the engine's preferences$ follows these events itself.
    touches: () => NOTHING,
  }),
  'queue.messageAdded': defineEvent({
    version: 2,
    payload: shape<QueueMessageAddedV2>({ conversationSlug: str, message: isObj, model: str, extraModels: strings, webSearch: queuedWebSearch, at: num }, {
      nested: { message: queuedMessageShape },
      test: (p) =>
        O(p) && S(p.conversationSlug) && S(p.model) && Array.isArray(p.extraModels) && queuedWebSearch(p.webSearch) && N(p.at) && O(p.message) &&
        checkShape(p.message, queuedMessageShape, '') === null,
    }),
    touches: (p) => page(p.conversationSlug),
    upcasters: { 1: queueMessageAddedV1toV2 },
  }),
  'queue.messageRemoved': defineEvent({
    version: 1,
    payload: shape<QueueMessageRemovedV1>({ conversationSlug: str, id: str, reason: oneOf('removed', 'submitted'), at: num }, {
      test: (p) => O(p) && S(p.conversationSlug) && S(p.id) && (p.reason === 'removed' || p.reason === 'submitted') && N(p.at),
    }),
    touches: (p) => page(p.conversationSlug),
  }),
  // The scratchpad is beside the conversation, not in it: the scratchpad query follows these events itself.
  'scratchpad.entryAdded': defineEvent({
    version: 1,
    payload: shape<ScratchpadEntryAddedV1>({ entry: isObj }, {
      nested: { entry: scratchpadEntryShape },
      test: (p) => O(p) && checkShape(p.entry, scratchpadEntryShape, '') === null,
    }),
    touches: () => NOTHING,
  }),
  'scratchpad.entryEdited': defineEvent({
    version: 1,
    payload: shape<ScratchpadEntryEditedV1>({ id: int, conversationSlug: str, content: str, at: num }),
    touches: () => NOTHING,
  }),
  'scratchpad.entryDeleted': defineEvent({
    version: 1,
    payload: shape<ScratchpadEntryDeletedV1>({ id: int, conversationSlug: str, at: num }),
    touches: () => NOTHING,
  }),
};
