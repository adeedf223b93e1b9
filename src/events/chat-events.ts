/**
 * Events of messages and their replies: a conversation created, a message added, a reply started, checkpointed,
 * completed, failed or interrupted (src/worker/rooms/chat/commands.ts, src/worker/rooms/replies/reply-runner.ts). Each is
 * declared once in `chatEvents` below (./define.ts); the catalogue (./catalogue.ts) joins it. Pure: no DOM, no clock.
 */
import type { ConversationRow, MessageRow } from './model';
import type { PaymentSource } from '../protocol/stream';
import { B, bool, checkShape, I, int, isObj, isRole, isSource, isStatus, N, nullable, num, O, optional, paymentSource, prompt, role, S, status, str, unchecked } from './checks';
import type { R, Shape } from './checks';
import { defineEvent, NOTHING, page, pageAndList, shape, UpcastError } from './define';
import { upgradeMessageRowToV41 } from './message-upgrade';
import type { LegacyMessageRow } from './message-upgrade';

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

/** The reply finished: its whole text, cost and token counts. */
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
  /** The user pressed Stop: the text is what arrived before. Absent on older events and on whole replies (= false). */
  stopped?: boolean;
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

// ---- the declarations ----

export const conversationShape: Shape = {
  id: int, uuid: str, slug: str, name: str, createdAt: num, updatedAt: num, latestMessage: str, isMediaOnly: bool,
  /** Its instructions when chosen before the first message or by default (issue 16); absent = 'Standard'. */
  instructions: optional(str),
};
/** message.added v1: the pre-branch row (status may be missing in very old rows; the upcaster fills it). */
const messageV1Shape: Shape = {
  id: int, conversationSlug: str, timestamp: num, role, prompt, model: str, status: optional(status),
};
export const messageV2Shape: Shape = {
  ...messageV1Shape,
  status,
  parentMessageId: nullable(int),
  alternativeGroup: nullable(str),
  branchIndex: int,
  isActiveBranch: bool,
  branchDepth: int,
  updatedAt: num,
};
/** The fields every reply and media event starts with. */
export const replyBase = { messageId: int, conversationSlug: str, at: num };
const replyOk = (p: R) => I(p.messageId) && S(p.conversationSlug) && N(p.at);

/** message.added v1 (pre-branch row) -> v2: exactly the schema v41 database upgrade of a message row. */
function messageAddedV1toV2(payload: unknown): MessageAddedV2 {
  const bad = checkShape(payload, { message: isObj }, 'payload') ?? checkShape((payload as { message: unknown }).message, messageV1Shape, 'payload.message');
  if (bad !== null) throw new UpcastError('invalid-payload', `message.added v1: ${bad}`);
  const message = (payload as { message: LegacyMessageRow }).message;
  // Very old rows carry no UI status; a stored v1 message was a finished one.
  const withStatus: LegacyMessageRow = message.status === undefined ? { ...message, status: 'done' } : message;
  return { message: upgradeMessageRowToV41(withStatus) };
}

export const chatEvents = {
  /** A conversation was created. */
  'conversation.created': defineEvent({
    version: 1,
    payload: shape<ConversationCreatedV1>({ conversation: isObj }, {
      nested: { conversation: conversationShape },
      test: (p) => {
        if (!O(p) || !O(p.conversation)) return false;
        const c = p.conversation;
        return I(c.id) && S(c.uuid) && S(c.slug) && S(c.name) && N(c.createdAt) && N(c.updatedAt) && S(c.latestMessage) && B(c.isMediaOnly) && (c.instructions === undefined || S(c.instructions));
      },
    }),
    touches: (p) => pageAndList(p.conversation.slug),
  }),
  /**
   * A message was stored (user, pending assistant, system...), with its branch fields. A user message with
   * attachments has `files` (MessageFile[]), and for a vision model image_url parts in `prompt`.
   */
  'message.added': defineEvent({
    version: 2,
    payload: shape<MessageAddedV2>({ message: isObj }, {
      nested: { message: messageV2Shape },
      test: (p) => {
        if (!O(p) || !O(p.message)) return false;
        const m = p.message;
        return (
          I(m.id) && S(m.conversationSlug) && N(m.timestamp) && isRole(m.role) && (S(m.prompt) || prompt(m.prompt)) && S(m.model) &&
          isStatus(m.status) && (m.parentMessageId === null || I(m.parentMessageId)) && (m.alternativeGroup === null || S(m.alternativeGroup)) &&
          I(m.branchIndex) && B(m.isActiveBranch) && I(m.branchDepth) && N(m.updatedAt)
        );
      },
    }),
    touches: (p) => pageAndList(p.message.conversationSlug),
    upcasters: { 1: messageAddedV1toV2 },
  }),
  'reply.started': defineEvent({
    version: 1,
    payload: shape<ReplyStartedV1>({ ...replyBase, model: str, requestId: str }, { test: (p) => O(p) && replyOk(p) && S(p.model) && S(p.requestId) }),
    touches: (p) => page(p.conversationSlug),
  }),
  'reply.checkpointed': defineEvent({
    version: 1,
    payload: shape<ReplyCheckpointedV1>({ ...replyBase, text: str, thinking: str }, { test: (p) => O(p) && replyOk(p) && S(p.text) && S(p.thinking) }),
    // A checkpoint saves text the page already shows live (the reply is running here): no page reloads for it.
    touches: () => NOTHING,
  }),
  'reply.completed': defineEvent({
    version: 1,
    payload: shape<ReplyCompletedV1>(
      { ...replyBase, text: str, thinking: str, cost: num, paymentSource: nullable(paymentSource), outputTokens: nullable(num), inputTokens: optional(nullable(num)), stopped: optional(bool) },
      {
        test: (p) =>
          O(p) && replyOk(p) && S(p.text) && S(p.thinking) && N(p.cost) && isSource(p.paymentSource) && (p.outputTokens === null || N(p.outputTokens)) &&
          (p.inputTokens === undefined || p.inputTokens === null || N(p.inputTokens)) && (p.stopped === undefined || B(p.stopped)),
      },
    ),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  'reply.failed': defineEvent({
    version: 1,
    payload: shape<ReplyFailedV1>(
      { ...replyBase, userMessageId: int, error: str, keepPartial: bool, text: str, thinking: str, cost: num, paymentSource: nullable(paymentSource), ownError: unchecked },
      { test: (p) => O(p) && replyOk(p) && I(p.userMessageId) && S(p.error) && B(p.keepPartial) && S(p.text) && S(p.thinking) && N(p.cost) && isSource(p.paymentSource) },
    ),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  'reply.interrupted': defineEvent({
    version: 1,
    payload: shape<ReplyInterruptedV1>({ ...replyBase, reason: str }, { test: (p) => O(p) && replyOk(p) && S(p.reason) }),
    touches: (p) => page(p.conversationSlug),
  }),
};
