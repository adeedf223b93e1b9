/**
 * Events of messages and their replies: a message added, a reply started, checkpointed, completed, failed or
 * interrupted (src/worker/commands/chat.ts, src/worker/services/reply-runner.ts).
 * Listed in the shared catalogue (./catalogue.ts), which re-exports them. Pure: no DOM, no clock.
 */
import type { ConversationRow, MessageRow } from './model';
import type { PaymentSource } from '../protocol/stream';

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
