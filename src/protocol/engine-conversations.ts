/**
 * The engine's conversation domains: the list and search, a conversation's view and live updates, instruction
 * presets, the queue, and the message tree (branches, edit, delete, retry, duplicate).
 * Joined into the engine API by ./engine.ts, which re-exports them.
 */
import type { SearchDepth } from './web';
import type { ConversationRow, InstructionRow, MessageRow, QueuedMessage, WebSourceRecord } from '../events/model';
import type { ActionResult, SendMessageResult } from './engine';

export interface ConversationSummary {
  id: number;
  slug: string;
  name: string;
  updatedAt: number;
  latestMessage: string;
  /** Pinned conversations lead the list. */
  pinned: boolean;
  /** The folder it is in (spec 001 section 3: one at most), or null. */
  folderId: number | null;
}

/** One conversation found by search: where to go, and the text around the match. */
export interface SearchHit {
  slug: string;
  name: string;
  snippet: string;
  /** The message that matched, or null when the name did. */
  messageId: number | null;
}


/** A message as the view renders it: the stored row, with live text for a reply that is streaming. */
export type MessageView = MessageRow & {
  text: string;
  /** Its place among its alternatives (1-based index, count), when it has any (src/shared/history.ts). */
  alternatives?: { index: number; count: number };
  /**
   * Spec 000 section 3 `childMessages`: the ids of the messages whose parent this is (every alternative of the next
   * turn), in time order; [] for the last. The conversation query derives it from the tree it builds for the path
   * (rows keep only their parentMessageId). Set on every message of a conversation view.
   */
  childMessages?: number[];
  /** A finished reply whose output came within 10% of max tokens: it can be continued (spec 000 section 4). */
  canContinue?: boolean;
  /** A reply to a message that searched the web: the numbered sources its [n] cite (src/shared/web-context.ts). */
  citations?: WebSourceRecord[];
  /** A reply with images: the prompt they were made from (its user message's text; rooms/media/image-prompts.ts). */
  imagePrompt?: string;
};

export interface ConversationView {
  conversation: ConversationRow;
  messages: MessageView[];
  /** A reply is being generated in this conversation. */
  pending: boolean;
  /**
   * Its queued messages, oldest first: in the same view as the messages, so that a queued message leaves the queue in
   * the same update that shows it sent (never both, never neither).
   */
  queue: QueuedView[];
  /**
   * Only the newest messages so far (a long conversation's first view, while the engine loads the rest; no
   * alternatives info yet): the whole view follows.
   */
  partial?: boolean;
}

/** What a streaming reply shows between two changes of the read model: its text so far and its state. */
export interface LiveMessageText {
  id: number;
  text: string;
  thinking: string;
  status: 'pending' | 'streaming';
}

/**
 * One update of a conversation page (the `conversationUpdates` query): the whole view when the read model changed
 * (or a reply started or ended), else only the live text of the replies streaming in it. Folded into a
 * ConversationView by applyConversationUpdate (src/protocol/conversation-updates.ts), on the tab side, so that a
 * reply streaming into a long conversation does not clone the whole conversation to every tab every 150 ms.
 */
export type ConversationUpdate = { kind: 'view'; view: ConversationView | null } | { kind: 'live'; messages: LiveMessageText[] };


export interface ConversationQueries {
  conversations: { query: { kind: 'conversations' }; result: ConversationSummary[] };
  conversation: { query: { kind: 'conversation'; slug: string }; result: ConversationView | null };
  /** The same page as updates (whole views, then live text only): what a tab subscribes to. */
  conversationUpdates: { query: { kind: 'conversationUpdates'; slug: string }; result: ConversationUpdate };
}
/** Saved instruction presets with the built-ins ('Standard', id 0, and 'Study Mode'), sorted by name. */
export interface InstructionQueries {
  instructions: { query: { kind: 'instructions' }; result: InstructionRow[] };
}
/** A queued message as the composer lists it: with the web search it will run when it is sent, if any. */
export type QueuedView = QueuedMessage & { webSearch?: { depth: SearchDepth } };
/** A conversation's queued messages, oldest first (src/worker/rooms/queue/commands.ts). */
export interface QueueQueries {
  queue: { query: { kind: 'queue'; slug: string }; result: QueuedView[] };
  /**
   * The queued message the engine offers this tab to put in its input and send (`sendQueuedMessage`), once the
   * conversation's replies end; null between offers. Subscribing is what tells the engine a tab shows the
   * conversation (src/worker/rooms/queue/offers.ts).
   */
  queueTurn: { query: { kind: 'queueTurn'; slug: string }; result: QueueTurn | null };
}
/** A queued message offered to the tabs showing its conversation: its id and the text to put in the input. */
export interface QueueTurn {
  id: string;
  prompt: string;
}

/** Conversation management (src/worker/rooms/conversations/commands.ts): rename, delete and undo, pin, instructions, titles, search. */
export interface ConversationHandlers {
  renameConversation(slug: string, name: string): Promise<ActionResult>;
  /** Hides it at once; `restoreConversation` brings it back until the undo window passes, then it is purged. */
  deleteConversation(slug: string): Promise<ActionResult>;
  restoreConversation(slug: string): Promise<ActionResult>;
  /** Deletes several at once (the sidebar's selection): one notice with one Undo (`restoreConversations`). */
  deleteConversations(slugs: string[]): Promise<ActionResult>;
  restoreConversations(slugs: string[]): Promise<ActionResult>;
  pinConversation(slug: string, pinned: boolean): Promise<ActionResult>;
  /** The conversation's system prompt; '' = the default ('Standard'). */
  setConversationInstructions(slug: string, instructions: string): Promise<ActionResult>;
  /** Asks the gateway for a title (at most 150 characters) and renames the conversation with it. */
  generateTitle(slug: string): Promise<ActionResult>;
  searchConversations(text: string): Promise<SearchHit[]>;
}

export interface InstructionInput {
  name: string;
  instructions: string;
}

/** Saved instruction presets (src/worker/rooms/instructions/commands.ts). Built-in presets cannot be changed. */
export interface InstructionHandlers {
  createInstruction(input: InstructionInput): Promise<{ ok: true; id: number } | { ok: false; error: string }>;
  updateInstruction(id: number, input: InstructionInput): Promise<ActionResult>;
  deleteInstruction(id: number): Promise<ActionResult>;
}


/**
 * Outcome of a message-tree command. Failures have already raised the spec's notice in the engine; `error` is its
 * title. `slug` and `messageId`: the conversation and message the command made (a duplicate, a new alternative).
 */
export type TreeResult = { ok: true; slug?: string; messageId?: number } | { ok: false; error: string };

/** Alternatives, branch switching and Continue (src/worker/rooms/branches/commands.ts). */
export interface BranchHandlers {
  /** A new alternative reply to the same prompt (Regenerate); it becomes the active branch. */
  regenerate(slug: string, messageId: number): Promise<TreeResult>;
  /** Shows the previous or next alternative of a message's group (and everything that follows it). */
  switchBranch(slug: string, messageId: number, direction: 'previous' | 'next'): Promise<TreeResult>;
  /** Extends a reply that stopped near max tokens, in place. */
  continueReply(slug: string, messageId: number): Promise<TreeResult>;
}

/** Edit, delete, retry and duplicate (src/worker/rooms/messages/commands.ts). */
export interface MessageHandlers {
  /** The edited prompt and its new reply become a new branch; the original stays reachable. */
  editMessage(slug: string, messageId: number, prompt: string): Promise<TreeResult>;
  /** Deletes it (a branch with what follows it) and raises "Message deleted" with Undo (`restoreMessage`). */
  deleteMessage(slug: string, messageId: number): Promise<TreeResult>;
  /** Undo of a deletion while its notice shows; refused once the conversation changed after it. */
  restoreMessage(slug: string, deletionId: string): Promise<TreeResult>;
  /** Sends a failed prompt again, or makes a new alternative of a failed or partial reply. */
  retryMessage(slug: string, messageId: number): Promise<TreeResult>;
  /** Copies the conversation up to this message into a new one (' (Copy)'). */
  duplicateConversation(slug: string, messageId: number): Promise<TreeResult>;
}


/** The message queue (src/worker/rooms/queue/commands.ts). */
export interface QueueHandlers {
  removeQueuedMessage(slug: string, id: string): Promise<ActionResult>;
  /**
   * Sends the offered queued message (`queueTurn`) from the tab's input: `prompt` is the input's text, the rest
   * (model, attachments, pages, web search) the queue entry's. Refused when another tab took it first.
   */
  sendQueuedMessage(slug: string, id: string, prompt: string): Promise<SendMessageResult>;
}
