/**
 * Events of the message tree: alternatives, branches, delete, retry, continue and duplicate. Each is declared once
 * in `treeEvents` below (./define.ts); the catalogue (./catalogue.ts) joins it. Pure: no DOM, no clock.
 */
import type { ConversationRow, MessageLibraryRow, MessageRow } from './model';
import { bool, checkShape, I, int, ints, isObj, N, nullable, num, O, objects, S, str } from './checks';
import type { Check, R, Shape } from './checks';
import { checked, defineEvent, page, pageAndList, shape } from './define';
import { conversationShape, messageV2Shape, replyBase } from './chat-events';

// ---- the message tree (spec 000 section 4, branches; src/worker/rooms/branches/commands.ts, messages.ts) ----

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
/**
 * Undo of a `message.deleted` (issue 16): the deleted rows come back as they were (`messages`), the children that
 * moved up move back under them (`reparented`), the members whose branch state the deletion changed get it back
 * (`branches`), and the deleted messages' attachment links return (`libraryLinks`).
 */
export interface MessageRestoredV1 {
  conversationSlug: string;
  messages: MessageRow[];
  reparented: { messageId: number; parentMessageId: number | null }[];
  branches: { messageId: number; alternativeGroup: string | null; branchIndex: number; isActiveBranch: boolean }[];
  libraryLinks: MessageLibraryRow[];
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

// ---- the declarations ----

const reparent: Check = (v) => isObj(v) && int(v.messageId) && nullable(int)(v.parentMessageId);
const reparents: Check = (v) => Array.isArray(v) && v.every(reparent);
const libraryLinkShape: Shape = { id: int, messageId: int, libraryId: int };
const branchState: Check = (v) => isObj(v) && int(v.messageId) && nullable(str)(v.alternativeGroup) && int(v.branchIndex) && bool(v.isActiveBranch);
const restoredShape: Shape = { conversationSlug: str, messages: objects, reparented: reparents, branches: (v) => Array.isArray(v) && v.every(branchState), libraryLinks: objects, at: num };

function checkRestored(p: unknown): string | null {
  const top = checkShape(p, restoredShape, 'payload');
  if (top !== null) return top;
  const d = p as R;
  const messages = d.messages as unknown[];
  for (let i = 0; i < messages.length; i++) {
    const m = checkShape(messages[i], messageV2Shape, `payload.messages[${i}]`);
    if (m !== null) return m;
    if ((messages[i] as R).conversationSlug !== d.conversationSlug) return `payload.messages[${i}].conversationSlug`;
  }
  const links = d.libraryLinks as unknown[];
  for (let i = 0; i < links.length; i++) {
    const l = checkShape(links[i], libraryLinkShape, `payload.libraryLinks[${i}]`);
    if (l !== null) return l;
  }
  return null;
}
const duplicatedShape: Shape = { sourceSlug: str, upToMessageId: int, conversation: isObj, messages: objects, libraryLinks: objects, at: num };

function checkDuplicated(p: unknown): string | null {
  const top = checkShape(p, duplicatedShape, 'payload');
  if (top !== null) return top;
  const d = p as R;
  const c = checkShape(d.conversation, conversationShape, 'payload.conversation');
  if (c !== null) return c;
  const messages = d.messages as unknown[];
  for (let i = 0; i < messages.length; i++) {
    const m = checkShape(messages[i], messageV2Shape, `payload.messages[${i}]`);
    if (m !== null) return m;
  }
  const links = d.libraryLinks as unknown[];
  for (let i = 0; i < links.length; i++) {
    const l = checkShape(links[i], libraryLinkShape, `payload.libraryLinks[${i}]`);
    if (l !== null) return l;
  }
  return null;
}

export const treeEvents = {
  'message.branched': defineEvent({
    version: 1,
    payload: shape<MessageBranchedV1>({ conversationSlug: str, messageId: int, alternativeGroup: str, at: num }, {
      test: (p) => O(p) && S(p.conversationSlug) && I(p.messageId) && S(p.alternativeGroup) && N(p.at),
    }),
    touches: (p) => page(p.conversationSlug),
  }),
  'branch.activated': defineEvent({
    version: 1,
    payload: shape<BranchActivatedV1>({ conversationSlug: str, alternativeGroup: str, messageId: int, at: num }, {
      test: (p) => O(p) && S(p.conversationSlug) && S(p.alternativeGroup) && I(p.messageId) && N(p.at),
    }),
    touches: (p) => page(p.conversationSlug),
  }),
  'message.deleted': defineEvent({
    version: 1,
    payload: shape<MessageDeletedV1>({ conversationSlug: str, messageIds: ints, reparented: reparents, activated: nullable(int), ungrouped: ints, at: num }),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  'message.restored': defineEvent({
    version: 1,
    payload: checked<MessageRestoredV1>(checkRestored),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  'message.retried': defineEvent({
    version: 1,
    payload: shape<MessageRetriedV1>({ conversationSlug: str, messageId: int, at: num }, {
      test: (p) => O(p) && S(p.conversationSlug) && I(p.messageId) && N(p.at),
    }),
    touches: (p) => page(p.conversationSlug),
  }),
  'reply.continued': defineEvent({
    version: 1,
    payload: shape<ReplyContinuedV1>({ ...replyBase, model: str, requestId: str, text: str, thinking: str }, {
      test: (p) => O(p) && I(p.messageId) && S(p.conversationSlug) && N(p.at) && S(p.model) && S(p.requestId) && S(p.text) && S(p.thinking),
    }),
    touches: (p) => page(p.conversationSlug),
  }),
  'conversation.duplicated': defineEvent({
    version: 1,
    payload: checked<ConversationDuplicatedV1>(checkDuplicated),
    touches: (p) => pageAndList(p.conversation.slug),
  }),
};
