/**
 * Events of the message tree: alternatives, branches, delete, retry, continue and duplicate.
 * Listed in the shared catalogue (./catalogue.ts), which re-exports them. Pure: no DOM, no clock.
 */
import type { ConversationRow, MessageLibraryRow, MessageRow } from './model';

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
