/**
 * The domain event catalogue: every change to local data is one of these, past tense, versioned.
 * Events are never removed or reinterpreted; a new shape is a new version plus an upcaster (./upcasters.ts).
 * Ids, timestamps and every other nondeterministic value travel in the payload.
 */
import type { AccountEventPayloads } from './account-events';
import type { LibraryCompletedV1, LibraryFailedV1, LibraryItemAddedV1, LibraryItemDeletedV1, LibraryItemLinkedV1, LibraryItemUnlinkedV1, LibraryMessageLinkedV1, LibraryProgressedV1, MessageImagesExtractedV1 } from './library-events';
import type { ConversationCreatedV1, MessageAddedV2, ReplyStartedV1, ReplyCheckpointedV1, ReplyCompletedV1, ReplyFailedV1, ReplyInterruptedV1 } from './chat-events';
import type { ConversationRenamedV1, ConversationDeletedV1, ConversationRestoredV1, ConversationPurgedV1, ConversationPinnedV1, ConversationUnpinnedV1, ConversationInstructionsSetV1, InstructionCreatedV1, InstructionUpdatedV1, InstructionDeletedV1, PreferencesChangedV1, QueueMessageAddedV2, QueueMessageRemovedV1, ScratchpadEntryAddedV1, ScratchpadEntryEditedV1, ScratchpadEntryDeletedV1 } from './conversation-events';
import type { MessageBranchedV1, BranchActivatedV1, MessageDeletedV1, MessageRetriedV1, ReplyContinuedV1, ConversationDuplicatedV1 } from './tree-events';
import type { ImageGeneratedV1, ImageAnsweredV1, ImageFavouritedV1, VideoRequestedV1, VideoStatusChangedV1, ModelSettingsChangedV1, MessageWebSearchedV1, SpeechGeneratedV1 } from './media-events';
import type { PaymentStartedV1, PaymentSettledV1 } from './money-events';

// The payload shapes live by domain in these modules; re-exported so that every import of this path stays.
export type * from './chat-events';
export type * from './conversation-events';
export type * from './tree-events';
export type * from './media-events';
export type * from './money-events';

/** Current event shapes, by type. */
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
