/**
 * The domain event catalogue: every change to local data is one of these, past tense, versioned.
 * Events are never removed or reinterpreted; a new shape is a new version plus an upcaster (./upcasters.ts).
 * Ids, timestamps and every other nondeterministic value travel in the payload.
 */
import type { ConversationRow, ImageRef, InstructionRow, MessageAudio, MessageLibraryRow, MessageRow, ModelSettings, QueuedMessage, ScratchpadEntryRow, WebSearchRecord } from './model';
import type { PaymentSource } from '../protocol/stream';
import type { Preferences } from '../protocol/preferences';
import type { AccountEventPayloads } from './account-events';
import type { LibraryCompletedV1, LibraryFailedV1, LibraryItemAddedV1, LibraryItemDeletedV1, LibraryItemLinkedV1, LibraryItemUnlinkedV1, LibraryMessageLinkedV1, LibraryProgressedV1, MessageImagesExtractedV1 } from './library-events';

export interface ConversationCreatedV1 {
  conversation: ConversationRow;
}

/** v1: the pre-branch message shape (before schema v41), no branch fields and possibly second timestamps. */
export interface MessageAddedV1 {
  message: Omit<MessageRow, 'parentMessageId' | 'alternativeGroup' | 'branchIndex' | 'isActiveBranch' | 'branchDepth' | 'updatedAt'>;
}
/** v2: full message row including branch fields. */
export interface MessageAddedV2 {
  message: MessageRow;
}

/** The engine began requesting a reply into a pending assistant message. */
export interface ReplyStartedV1 {
  messageId: number;
  conversationSlug: string;
  model: string;
  requestId: string;
  at: number;
}

/** Crash-recovery checkpoint of a streaming reply: the full text so far. */
export interface ReplyCheckpointedV1 {
  messageId: number;
  conversationSlug: string;
  text: string;
  thinking: string;
  at: number;
}

export interface ReplyCompletedV1 {
  messageId: number;
  conversationSlug: string;
  text: string;
  thinking: string;
  cost: number;
  paymentSource: PaymentSource | null;
  outputTokens: number | null;
  at: number;
  /** Input tokens the gateway counted for the request (the JSON export's completion). Absent on older events. */
  inputTokens?: number | null;
}

/**
 * The reply failed. The user message is marked hasError with `error`. When `keepPartial` is true the assistant
 * message keeps `text` (isPartial); otherwise the pending assistant message is deleted (spec 000 section 4).
 */
export interface ReplyFailedV1 {
  messageId: number;
  userMessageId: number;
  conversationSlug: string;
  error: string;
  keepPartial: boolean;
  text: string;
  thinking: string;
  cost: number;
  paymentSource: PaymentSource | null;
  at: number;
  /**
   * The failure is this reply's alone (one model of a multi-model request): the assistant message stays, with
   * the error and whatever text arrived; the user message is not marked. Absent on older events (= false).
   */
  ownError?: boolean;
}

/** The engine that ran the reply went away mid-stream (leader tab closed); the checkpointed text is kept. */
export interface ReplyInterruptedV1 {
  messageId: number;
  conversationSlug: string;
  reason: string;
  at: number;
}

/** A conversation got a new name: typed by the user, or a title generated from its content (at most 150 characters). */
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

// ---- the message tree (spec 000 section 4, branches; src/worker/commands/branches.ts, messages.ts) ----

/**
 * The first alternative of a message was made: the message becomes branch 0 of `alternativeGroup`, not active
 * (a `branch.activated` for the new member follows in the same append).
 */
export interface MessageBranchedV1 {
  conversationSlug: string;
  messageId: number;
  alternativeGroup: string;
  at: number;
}
/** `messageId` becomes the active member of its alternative group; every other member becomes inactive. */
export interface BranchActivatedV1 {
  conversationSlug: string;
  alternativeGroup: string;
  messageId: number;
  at: number;
}
/**
 * Messages were deleted: `messageIds` go; `reparented` children move to a new parent (deleting one message of a
 * line keeps what follows it); `activated` becomes its group's active member (the deleted one was active);
 * `ungrouped` messages leave their group (the last member left), becoming plain active messages.
 */
export interface MessageDeletedV1 {
  conversationSlug: string;
  messageIds: number[];
  reparented: { messageId: number; parentMessageId: number | null }[];
  activated: number | null;
  ungrouped: number[];
  at: number;
}
/** A failed user message is sent again: its error mark is cleared (a new reply follows in the same append). */
export interface MessageRetriedV1 {
  conversationSlug: string;
  messageId: number;
  at: number;
}
/**
 * A finished reply is extended in place (Continue): a new request streams more text after `text`, the reply's
 * text when it was continued (kept on the row as `continuedFrom`, so an engine taking over can resume it).
 */
export interface ReplyContinuedV1 {
  messageId: number;
  conversationSlug: string;
  model: string;
  requestId: string;
  text: string;
  thinking: string;
  at: number;
}
/**
 * A conversation was copied up to a message: the new conversation (' (Copy)') and its messages with new ids,
 * and the copied attachment links (messageLibrary rows with new ids and message ids).
 */
export interface ConversationDuplicatedV1 {
  sourceSlug: string;
  upToMessageId: number;
  conversation: ConversationRow;
  messages: MessageRow[];
  libraryLinks: MessageLibraryRow[];
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

// ---- media (src/worker/commands/media.ts, src/worker/services/video-poller.ts) ----

/** The images of a pending image message arrived; their bytes were stored in `files` before this was appended. */
export interface ImageGeneratedV1 {
  messageId: number;
  conversationSlug: string;
  images: ImageRef[];
  /** The images are the quadrants of one grid (splitImages). */
  splitImages: boolean;
  taskId: string | null;
  cost: number;
  paymentSource: PaymentSource | null;
  isNSFW: boolean;
  at: number;
}
/**
 * The image call answered without images: a recommendation of another model, or an explicit prompt that needs
 * explicit mode. `text` is what the assistant message says.
 */
export interface ImageAnsweredV1 {
  messageId: number;
  conversationSlug: string;
  text: string;
  recommendedModel: string | null;
  recommendedModelName: string | null;
  isNSFW: boolean;
  requiresExplicitMode: boolean;
  at: number;
}
/** An image was marked (or unmarked) a favourite in the gallery. */
export interface ImageFavouritedV1 {
  fileId: number;
  favourite: boolean;
  at: number;
}
/** A video job was accepted by the gateway; its status is then polled (spec 000 section 4). */
export interface VideoRequestedV1 {
  messageId: number;
  conversationSlug: string;
  runId: string;
  model: string;
  at: number;
}
/** A video job's status changed: processing, completed (with its file), error (with a note) or cancelled. */
export interface VideoStatusChangedV1 {
  messageId: number;
  conversationSlug: string;
  status: 'processing' | 'completed' | 'error' | 'cancelled';
  videoUrl: string | null;
  videoFileId: number | null;
  error: string | null;
  cost: number;
  paymentSource: PaymentSource | null;
  at: number;
}
/** A model's settings changed (only the fields given; the rest stay). */
export interface ModelSettingsChangedV1 {
  modelId: string;
  settings: ModelSettings;
  at: number;
}

/**
 * A web search ran for a user message before its reply (docs/events.md): its numbered sources go with the message
 * to the model (and to every regeneration of its reply, which does not search again) and its replies cite them.
 */
export interface MessageWebSearchedV1 {
  conversationSlug: string;
  messageId: number;
  webSearch: WebSearchRecord;
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

// ---- money (src/worker/commands/money.ts) ----

/**
 * A deposit was created at the gateway (POST /transaction/create/{ticker}): the engine polls its status until it
 * settles or expires (30 minutes), and an engine starting later picks it up from the log (DESIGN rule 6).
 */
export interface PaymentStartedV1 {
  /** The gateway's transaction id. */
  id: string;
  ticker: string;
  /** As the user typed it, in the ticker's unit. */
  amount: string;
  /** The provider's reference (invoice or checkout session). */
  txId: string;
  /** Seconds (spec 001 section 3). */
  createdAt: number;
  paymentLink: string;
  /** Daimo-style deposits: the nonce the redeem call carries (absent otherwise). */
  paymentNonce?: string;
  at: number;
}
/** A deposit ended: completed (credited), failed, or expired (by the provider or after 30 minutes of polling). */
export interface PaymentSettledV1 {
  id: string;
  status: 'completed' | 'failed' | 'expired';
  at: number;
}

/** Current event shapes, by type. */
/**
 * Speech of a message was made, chunk by chunk (src/worker/services/speech/): the whole take so far, appended after
 * each chunk (its Blob is stored in `files` first). `completes`: an Audio mode reply whose speech is finished; the
 * message is then done, with the take's cost.
 */
export interface SpeechGeneratedV1 {
  messageId: number;
  conversationSlug: string;
  audio: MessageAudio;
  completes: boolean;
  paymentSource: PaymentSource | null;
  at: number;
}

export interface EventPayloads extends AccountEventPayloads {
  'conversation.created': ConversationCreatedV1;
  'message.added': MessageAddedV2;
  'reply.started': ReplyStartedV1;
  'reply.checkpointed': ReplyCheckpointedV1;
  'reply.completed': ReplyCompletedV1;
  'reply.failed': ReplyFailedV1;
  'reply.interrupted': ReplyInterruptedV1;
  'conversation.renamed': ConversationRenamedV1;
  'conversation.deleted': ConversationDeletedV1;
  'conversation.restored': ConversationRestoredV1;
  'conversation.purged': ConversationPurgedV1;
  'conversation.pinned': ConversationPinnedV1;
  'conversation.unpinned': ConversationUnpinnedV1;
  'conversation.instructionsSet': ConversationInstructionsSetV1;
  'instruction.created': InstructionCreatedV1;
  'instruction.updated': InstructionUpdatedV1;
  'instruction.deleted': InstructionDeletedV1;
  'queue.messageAdded': QueueMessageAddedV2;
  'queue.messageRemoved': QueueMessageRemovedV1;
  'message.branched': MessageBranchedV1;
  'branch.activated': BranchActivatedV1;
  'message.deleted': MessageDeletedV1;
  'message.retried': MessageRetriedV1;
  'reply.continued': ReplyContinuedV1;
  'conversation.duplicated': ConversationDuplicatedV1;
  'preferences.changed': PreferencesChangedV1;
  'image.generated': ImageGeneratedV1;
  'image.answered': ImageAnsweredV1;
  'image.favourited': ImageFavouritedV1;
  'video.requested': VideoRequestedV1;
  'video.statusChanged': VideoStatusChangedV1;
  'modelSettings.changed': ModelSettingsChangedV1;
  'payment.started': PaymentStartedV1;
  'payment.settled': PaymentSettledV1;
  'message.webSearched': MessageWebSearchedV1;
  'scratchpad.entryAdded': ScratchpadEntryAddedV1;
  'scratchpad.entryEdited': ScratchpadEntryEditedV1;
  'scratchpad.entryDeleted': ScratchpadEntryDeletedV1;
  'library.itemAdded': LibraryItemAddedV1;
  'library.itemProgressed': LibraryProgressedV1;
  'library.itemCompleted': LibraryCompletedV1;
  'library.itemFailed': LibraryFailedV1;
  'library.itemDeleted': LibraryItemDeletedV1;
  'library.itemLinked': LibraryItemLinkedV1;
  'library.messageLinked': LibraryMessageLinkedV1;
  'message.imagesExtracted': MessageImagesExtractedV1;
  'library.itemUnlinked': LibraryItemUnlinkedV1;
  'speech.generated': SpeechGeneratedV1;
}

export type EventType = keyof EventPayloads;

/** Current version of each event type. */
export const CURRENT_VERSION: { [K in EventType]: number } = {
  'conversation.created': 1,
  'message.added': 2,
  'reply.started': 1,
  'reply.checkpointed': 1,
  'reply.completed': 1,
  'reply.failed': 1,
  'reply.interrupted': 1,
  'conversation.renamed': 1,
  'conversation.deleted': 1,
  'conversation.restored': 1,
  'conversation.purged': 1,
  'conversation.pinned': 1,
  'conversation.unpinned': 1,
  'conversation.instructionsSet': 1,
  'instruction.created': 1,
  'instruction.updated': 1,
  'instruction.deleted': 1,
  'queue.messageAdded': 2,
  'queue.messageRemoved': 1,
  'message.branched': 1,
  'branch.activated': 1,
  'message.deleted': 1,
  'message.retried': 1,
  'reply.continued': 1,
  'conversation.duplicated': 1,
  'preferences.changed': 1,
  'image.generated': 1,
  'image.answered': 1,
  'image.favourited': 1,
  'video.requested': 1,
  'video.statusChanged': 1,
  'modelSettings.changed': 1,
  'payment.started': 1,
  'payment.settled': 1,
  'message.webSearched': 1,
  'scratchpad.entryAdded': 1,
  'scratchpad.entryEdited': 1,
  'scratchpad.entryDeleted': 1,
  'library.itemAdded': 1,
  'library.itemProgressed': 1,
  'library.itemCompleted': 1,
  'library.itemFailed': 1,
  'library.itemDeleted': 1,
  'library.itemLinked': 1,
  'library.messageLinked': 1,
  'message.imagesExtracted': 1,
  'library.itemUnlinked': 1,
  'speech.generated': 1,
  'folder.created': 1,
  'folder.renamed': 1,
  'folder.deleted': 1,
  'conversation.movedToFolder': 1,
  'updates.read': 1,
};

/** An event as a command creates it (current version). */
export type NewEvent = {
  [K in EventType]: { type: K; v: number; id: string; at: number; payload: EventPayloads[K] };
}[EventType];

/** An event as stored in the log: `seq` is the log position (IndexedDB auto-increment). */
export type StoredEvent = NewEvent & { seq: number };

/** Any event read from an older log, before upcasting. */
export interface RawEvent {
  seq?: number;
  type: string;
  v: number;
  id: string;
  at: number;
  payload: unknown;
}

export function makeEvent<K extends EventType>(type: K, payload: EventPayloads[K], id: string, at: number): NewEvent {
  return { type, v: CURRENT_VERSION[type], id, at, payload } as NewEvent;
}
