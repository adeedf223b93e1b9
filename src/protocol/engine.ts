/**
 * The one typed interface of the engine (the leader tab's dedicated worker), as every tab sees it through Comlink.
 * Subscriptions: the callback is passed as a Comlink proxy; the returned unsubscribe is a Comlink proxy too.
 */
import type { ScrapedPage, ScrapeFailure, SearchDepth, Suggestion, SuggestionKind, WebSearchStatus } from './web';
import type { ConversationRow, InstructionRow, MessageRow, Mode, ModelSettings, QueuedMessage, ScratchpadEntryRow, WebSourceRecord } from '../events/model';
import type { ModelInfo, SessionData } from './api';
import type { Preferences } from './preferences';
import type { LibraryHandlers, LibraryQueries } from './library';
import type { Invitation, PaymentLimits, PaymentMethodsResponse, PaymentStatus, PaymentTransaction } from './payments';
import type { MessageAudio, SpeechChoiceRecord } from '../events/model';
import type { TranscribeConfig } from './speech';
import type { ConsentHandlers, ConsentQueries, FolderHandlers, FolderQueries, UpdatesHandlers, UpdatesQueries } from './account';

/** Bumped whenever this interface changes shape: a tab whose bundle is stale reloads. */
/** 2: the workspace commands of issue 6 (conversations, presets, queue, message tree). 3: the scratchpad. */
/** 4: the money room of issue 10 (deposits, nano, invitations, auto-recharge, recovery codes). */
/** 5: the conversationUpdates query (a page's live text between whole views) and the modes query. */
/** 6: media (images, video jobs, the gallery, per-model settings). */
/** 7: folders, the updates feed and analytics consent (issue 10 items 7 and 8). */
/** 9: the library and attachments of issue 7, and speech (Read aloud, the Audio and Voice modes, transcription) of issue 9. */
export const ENGINE_PROTOCOL_VERSION = 9;

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

/** Outcome of a conversation or preset command; `error` is shown to the user as is. */
export type ActionResult = { ok: true } | { ok: false; error: string };

/** A message as the view renders it: the stored row, with live text for a reply that is streaming. */
export type MessageView = MessageRow & {
  text: string;
  /** Its place among its alternatives (1-based index, count), when it has any (src/worker/services/history.ts). */
  alternatives?: { index: number; count: number };
  /** A finished reply whose output came within 10% of max tokens: it can be continued (spec 000 section 4). */
  canContinue?: boolean;
  /** A reply to a message that searched the web: the numbered sources its [n] cite (src/worker/services/web-context.ts). */
  citations?: WebSourceRecord[];
  /** A reply with images: the prompt they were made from (its user message's text; services/media/image-prompts.ts). */
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

export type NoticeTone = 'red' | 'orange' | 'green' | 'blue';
export interface Notice {
  id: string;
  title: string;
  text: string;
  tone: NoticeTone;
  /** Milliseconds before it closes; null = stays until dismissed. */
  durationMs: number | null;
  action?:
    | { label: string; kind: 'reload' | 'wallet' }
    /** "Go to wallet" that opens the Deposit dialog there (spec 001 section 2: when the caller asks for it). */
    | { label: string; kind: 'deposit' }
    | { label: string; kind: 'undo'; slug: string }
    /** Sends a failed prompt again (the context memory notice, spec 000 section 4). */
    | { label: string; kind: 'resend'; slug: string; messageId: number }
    /** Plays a message's audio (the 'Audio Ready' notice when autoplay was blocked, spec 001 section 4). */
    | { label: string; kind: 'playAudio'; messageId: number }
    /** Opens the Deposit dialog at once, over the page (spec 000 section 6: "otherwise the deposit modal opens"). */
    | { label: string; kind: 'depositNow' };
}

export interface EngineStatus {
  ready: boolean;
  /** Local database state: 'unavailable' shows the spec's 'Local storage unavailable' notice. */
  storage: 'ok' | 'unavailable';
  engineId: string;
}

export interface SessionView {
  session: SessionData | null;
  /** The session has a balance above the paid-use threshold (0.00001 USD or nano). */
  canUsePaidModels: boolean;
  error: string | null;
}

export interface ModelsView {
  models: ModelInfo[];
  defaultModel: string;
  error: string | null;
}

/**
 * Live queries, by kind: what a subscription asks for and what it receives. Each domain adds its own entries
 * (one interface per domain, joined below), so a new query is a new key, never an edit of a switch.
 */
export interface CoreQueries {
  session: { query: { kind: 'session' }; result: SessionView };
  models: { query: { kind: 'models' }; result: ModelsView };
  notices: { query: { kind: 'notices' }; result: Notice[] };
  status: { query: { kind: 'status' }; result: EngineStatus };
  preferences: { query: { kind: 'preferences' }; result: Preferences };
}
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
/** A conversation's queued messages, oldest first (src/worker/commands/queue.ts). */
export interface QueueQueries {
  queue: { query: { kind: 'queue'; slug: string }; result: QueuedView[] };
}
/** One image of the gallery (every generated image across conversations, newest first, at most 1000). */
export interface GalleryItem {
  fileId: number;
  thumbId: number;
  mimeType: string;
  width: number;
  height: number;
  messageId: number;
  slug: string;
  conversationName: string;
  /** The prompt that made it. */
  prompt: string;
  model: string;
  timestamp: number;
  favourite: boolean;
}
/** Media (src/worker/queries/media.ts). */
export interface MediaQueries {
  gallery: { query: { kind: 'gallery' }; result: GalleryItem[] };
  /** Per-model settings by model id (spec 000 section 3). */
  modelSettings: { query: { kind: 'modelSettings' }; result: Record<string, ModelSettings> };
}
/** One deposit as the wallet shows it (the payment store's transactionData, spec 001 section 3). */
export interface PaymentView {
  id: string;
  ticker: string;
  amount: string;
  txId: string;
  createdAt: number;
  paymentLink: string;
  paymentNonce: string | null;
  status: PaymentStatus;
  startedAt: number;
  settledAt: number | null;
}
export type NanoSocketStateView = 'idle' | 'connecting' | 'connected' | 'closed' | 'error';
/** The money room's live state (src/worker/commands/money.ts). */
export interface WalletView {
  /** The deposit being paid (pendingTransaction), newest first if several. */
  pending: PaymentView | null;
  /** Latest deposits, newest first. */
  payments: PaymentView[];
  nano: { state: NanoSocketStateView; node: string | null; address: string | null; lastDeposit: { hash: string; amount: string; at: number } | null };
}
export interface MoneyQueries {
  wallet: { query: { kind: 'wallet' }; result: WalletView };
}
/** A conversation's scratchpad entries, newest first (src/worker/commands/scratchpad.ts). */
export interface ScratchpadQueries {
  scratchpad: { query: { kind: 'scratchpad'; slug: string }; result: ScratchpadEntryRow[] };
}
/** The modes this engine can submit in (each mode's handler registers itself: src/worker/commands/submit-plugins.ts). */
export interface ModeQueries {
  modes: { query: { kind: 'modes' }; result: Mode[] };
}
/** Every domain's queries (one interface each); add a line, never rewrite this list. */
export interface QueryDefs
  extends CoreQueries,
    ConversationQueries,
    InstructionQueries,
    QueueQueries,
    ScratchpadQueries,
    MoneyQueries,
    ModeQueries,
    LibraryQueries,
    MediaQueries,
    FolderQueries,
    UpdatesQueries,
    ConsentQueries,
    SpeechQueries {}

export type QueryKind = keyof QueryDefs;
export type Query = QueryDefs[QueryKind]['query'];
export type QueryResult<Q extends Query> = QueryDefs[Q['kind']]['result'];

export interface SendMessageInput {
  /** Existing conversation slug, or null to create a new conversation. */
  slug: string | null;
  prompt: string;
  model: string;
  /** Spec 000 section 2. A mode whose handler is not built is refused with a plain message (the `modes` query). Default 'chat'. */
  mode?: Mode;
  /** Multi-model: up to 4 extra text models, no duplicates; each answers as its own assistant message. */
  extraModels?: string[];
  /** Image and video modes: this request's settings (default: the model's kept settings) and input images (`files` ids). */
  settings?: ModelSettings;
  inputImageIds?: number[];
  /** Library ids of attached files; scraped pages (spec 000 section 3, queued message). */
  attachments?: string[];
  scrapedUrls?: string[];
  scrapedContent?: QueuedMessage['scrapedContent'];
  /** Web search before the reply (the composer's "Web search" switch), at this depth. */
  webSearch?: { depth: SearchDepth };
  /** Audio mode: the voice, speed and the model's extra settings (spec 001 section 3); default: the preferences'. */
  speech?: SpeechChoice;
}

export type SendMessageResult =
  /** queued: a reply was generating, so the message waits in the conversation's queue (userMessageId 0). */
  | { ok: true; slug: string; userMessageId: number; queued?: boolean }
  /** notified: the engine already raised a notice for this failure, so the tab shows nothing more. */
  | { ok: false; error: string; notified?: boolean };

/** Engine-wide commands: the handshake, notices, the session and the log. */
export interface CoreHandlers {
  handshake(protocolVersion: number): Promise<{ ok: boolean; engineId: string; protocolVersion: number }>;
  dismissNotice(id: string): Promise<void>;
  refreshSession(): Promise<void>;
  /** The whole event log as NDJSON (header line first). */
  exportLog(): Promise<string>;
  /** Append the events of an NDJSON log that this log does not have yet; rebuilds read models. */
  importLog(ndjson: string): Promise<{ imported: number; skipped: number }>;
}

/** Preferences (src/worker/commands/preferences.ts), kept in the log. */
export interface PreferencesHandlers {
  /**
   * Changes some preferences; every tab sees the new values through the `preferences` query. Rejects (throws)
   * an unknown field or an invalid value (src/protocol/preferences.ts PREFERENCE_CHECKS); unchanged fields log nothing.
   */
  setPreferences(changes: Partial<Preferences>): Promise<void>;
}

/** Chat: send a message and stop a reply (src/worker/commands/chat.ts). */
export interface ChatHandlers {
  sendMessage(input: SendMessageInput): Promise<SendMessageResult>;
  stopReply(slug: string): Promise<void>;
}

/** Conversation management (src/worker/commands/conversations.ts): rename, delete and undo, pin, instructions, titles, search. */
export interface ConversationHandlers {
  renameConversation(slug: string, name: string): Promise<ActionResult>;
  /** Hides it at once; `restoreConversation` brings it back until the undo window passes, then it is purged. */
  deleteConversation(slug: string): Promise<ActionResult>;
  restoreConversation(slug: string): Promise<ActionResult>;
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

/** Saved instruction presets (src/worker/commands/instructions.ts). Built-in presets cannot be changed. */
export interface InstructionHandlers {
  createInstruction(input: InstructionInput): Promise<{ ok: true; id: number } | { ok: false; error: string }>;
  updateInstruction(id: number, input: InstructionInput): Promise<ActionResult>;
  deleteInstruction(id: number): Promise<ActionResult>;
}

/**
 * Every command of the engine: one handler type per domain (src/worker/commands/*), joined here (DESIGN rule 12).
 * A new domain adds its interface to this intersection.
 */
/**
 * Outcome of a message-tree command. Failures have already raised the spec's notice in the engine; `error` is its
 * title. `slug` and `messageId`: the conversation and message the command made (a duplicate, a new alternative).
 */
export type TreeResult = { ok: true; slug?: string; messageId?: number } | { ok: false; error: string };

/** Alternatives, branch switching and Continue (src/worker/commands/branches.ts). */
export interface BranchHandlers {
  /** A new alternative reply to the same prompt (Regenerate); it becomes the active branch. */
  regenerate(slug: string, messageId: number): Promise<TreeResult>;
  /** Shows the previous or next alternative of a message's group (and everything that follows it). */
  switchBranch(slug: string, messageId: number, direction: 'previous' | 'next'): Promise<TreeResult>;
  /** Extends a reply that stopped near max tokens, in place. */
  continueReply(slug: string, messageId: number): Promise<TreeResult>;
}

/** Edit, delete, retry and duplicate (src/worker/commands/messages.ts). */
export interface MessageHandlers {
  /** The edited prompt and its new reply become a new branch; the original stays reachable. */
  editMessage(slug: string, messageId: number, prompt: string): Promise<TreeResult>;
  deleteMessage(slug: string, messageId: number): Promise<TreeResult>;
  /** Sends a failed prompt again, or makes a new alternative of a failed or partial reply. */
  retryMessage(slug: string, messageId: number): Promise<TreeResult>;
  /** Copies the conversation up to this message into a new one (' (Copy)'). */
  duplicateConversation(slug: string, messageId: number): Promise<TreeResult>;
}

export type ExportFormat = 'markdown' | 'json' | 'pdf';
/** A file the engine built for download (bytes transferred, not copied), or why it could not. */
export type ExportFile = { ok: true; fileName: string; mimeType: string; bytes: ArrayBuffer } | { ok: false; error: string };

/** Export (src/worker/commands/export.ts): a conversation's active branch as a file, or every conversation as one zip. */
export interface ExportHandlers {
  exportConversation(slug: string, format: ExportFormat): Promise<ExportFile>;
  exportAllConversations(): Promise<ExportFile>;
}

/** The message queue (src/worker/commands/queue.ts). */
export interface QueueHandlers {
  removeQueuedMessage(slug: string, id: string): Promise<ActionResult>;
}

/** An image or video request of the submit flow (spec 000 section 4, step 7's image and video handlers). */
export interface MediaSubmitInput {
  /** Existing conversation slug, or null to create a new conversation. */
  slug: string | null;
  prompt: string;
  model: string;
  /** Settings of this request; default: the model's kept settings. */
  settings?: ModelSettings;
  /** Files (`files` ids) used as input images: image-to-image, or image-to-video (the first). */
  inputImageIds?: number[];
}

/** Media (src/worker/commands/media.ts). */
export interface MediaHandlers {
  generateImage(input: MediaSubmitInput): Promise<SendMessageResult>;
  generateVideo(input: MediaSubmitInput): Promise<SendMessageResult>;
  /** Keeps a model's settings (merged into what it had); engine data, so they survive a reload. */
  setModelSettings(modelId: string, settings: ModelSettings): Promise<ActionResult>;
  setImageFavourite(fileId: number, favourite: boolean): Promise<ActionResult>;
  /** An image, thumbnail or video file as a Blob (shown with an object URL), or null when it is gone. */
  getFile(fileId: number): Promise<Blob | null>;
  /** Stores an image the user chose (an input for image-to-image); refused when it is not PNG, JPEG, WebP or GIF. */
  storeInputImage(image: Blob): Promise<{ ok: true; fileId: number } | { ok: false; error: string }>;
}

/** Fiat rates of the payment store (spec 001 section 3), cached 60 s. */
export interface FiatRatesView {
  eurPerUsd: number;
  gbpPerUsd: number;
  timestamp: number;
  state: 'loaded' | 'error';
}

export type MoneyResult<T> = ({ ok: true } & T) | { ok: false; error: string };

export interface InvitationInput {
  amount: string;
  currency: 'USD' | 'XNO';
  recipientName: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * Money (src/worker/commands/money.ts): deposits, nano, invitations, auto-recharge, recovery codes. Failures have
 * already raised the spec's notice in the engine; `error` is its title (or the validation message).
 */
export interface MoneyHandlers {
  paymentMethods(): Promise<PaymentMethodsResponse | null>;
  paymentLimits(ticker: string): Promise<PaymentLimits | null>;
  fiatRates(): Promise<FiatRatesView>;
  /** USD per XNO; 1 when the price cannot be had (spec 001 section 7). */
  nanoPrice(): Promise<number>;
  /** With a network (USDC or USDT on BASE, ...), a Daimo-style deposit: paid, then redeemed by the engine. */
  createPayment(ticker: string, amount: string, network?: string): Promise<MoneyResult<{ transaction: PaymentTransaction }>>;
  /** The session's nano deposit address (made on first use); starts the deposit websocket. */
  nanoDepositAddress(): Promise<MoneyResult<{ address: string }>>;
  convertNanoToUsd(amount?: string): Promise<MoneyResult<{ amount: string }>>;
  checkReceivables(): Promise<MoneyResult<{ receivable: string }>>;
  getRepresentative(): Promise<MoneyResult<{ representative: string }>>;
  changeRepresentative(representative: string): Promise<MoneyResult<{ representative: string }>>;
  setRechargeSettings(settings: { enabled: boolean; threshold: string; target: string }): Promise<ActionResult>;
  setDisplayCurrency(currency: 'USD' | 'XNO'): Promise<ActionResult>;
  listInvitations(): Promise<MoneyResult<{ invitations: Invitation[] }>>;
  createInvitation(input: InvitationInput): Promise<MoneyResult<{ invitation: Invitation }>>;
  updateInvitation(redeemCode: string, changes: Partial<InvitationInput>): Promise<MoneyResult<{ invitation: Invitation }>>;
  redeemInvitation(redeemCode: string): Promise<MoneyResult<{ amount: string; currency: 'USD' | 'XNO' }>>;
  deleteInvitation(redeemCode: string): Promise<ActionResult>;
  /** A new recovery code for this session (shown once; the previous one stops working). */
  createRecoveryCode(): Promise<MoneyResult<{ code: string }>>;
  /** Opens the session of a recovery code in this browser. */
  recoverSession(code: string): Promise<ActionResult>;
  accountMergeCheck(): Promise<{ canMigrate: boolean; hasRecoveryCode: boolean } | null>;
}

/** What scraping URLs for the composer gave: the pages read and why others were not (src/worker/commands/web.ts). */
export type ScrapeOutcome =
  | { ok: true; pages: ScrapedPage[]; failures: ScrapeFailure[]; cost: number }
  | { ok: false; error: string; notified?: boolean };

/** Web search status, scraping and starter suggestions (src/worker/commands/web.ts). */
export interface WebHandlers {
  /** Whether web search can be used, and why not (the composer's switch). */
  webSearchStatus(): Promise<WebSearchStatus>;
  /** Scrapes up to 25 unique URLs through the gateway (charged per page read). */
  scrapeUrls(urls: string[]): Promise<ScrapeOutcome>;
  /** Random starter prompts for an empty conversation; [] when the gateway cannot be asked. */
  suggestions(kind: SuggestionKind): Promise<Suggestion[]>;
}

/** What a scratchpad entry holds: a note typed in the panel, a message's text, code, or a code run's output. */
export type ScratchpadEntryType = 'note' | 'message' | 'code' | 'output';

/** The scratchpad of each conversation (src/worker/commands/scratchpad.ts), kept in the log. */
export interface ScratchpadHandlers {
  addScratchpadEntry(slug: string, content: string, type: ScratchpadEntryType): Promise<{ ok: true; id: number } | { ok: false; error: string }>;
  editScratchpadEntry(id: number, content: string): Promise<ActionResult>;
  deleteScratchpadEntry(id: number): Promise<ActionResult>;
}

export type CommandHandlers =
  & CoreHandlers
  & PreferencesHandlers
  & ChatHandlers
  & ConversationHandlers
  & InstructionHandlers
  & BranchHandlers
  & MessageHandlers
  & ExportHandlers
  & QueueHandlers
  & WebHandlers
  & ScratchpadHandlers
  & MoneyHandlers
  & LibraryHandlers
  & MediaHandlers
  & FolderHandlers
  & UpdatesHandlers
  & ConsentHandlers
  & SpeechHandlers;

export type EngineApi = CommandHandlers & {
  subscribe<Q extends Query>(query: Q, callback: (value: QueryResult<Q>) => void): Promise<() => void>;
};

/** A voice, speed and the model's extra settings for speech (src/protocol/speech-catalogue.ts); an Audio mode reply keeps it. */
export type SpeechChoice = SpeechChoiceRecord;

/** A message's speech as the player follows it: the chunks made so far, and whether more are coming. */
export interface SpeechState {
  audio: MessageAudio | null;
  generating: boolean;
  /** Why the last attempt made nothing (or skipped), or null. */
  error: string | null;
}

export interface SpeechQueries {
  speech: { query: { kind: 'speech'; messageId: number }; result: SpeechState };
}

export type ReadAloudResult =
  | { ok: true; audio: MessageAudio }
  /** skipped: 'balance' when a paid model cannot be paid for (spec 001 section 4: generation is skipped). */
  | { ok: false; error: string; skipped?: 'balance' };

/** Speech (src/worker/commands/speech.ts). */
export interface SpeechHandlers {
  /**
   * Makes (or finds cached) the speech of a message, chunk by chunk: the `speech` query shows each chunk as it is
   * made. Model: the given one, else the preferred TTS model if the gateway offers it, else the offline voice.
   */
  readAloud(messageId: number, choice?: SpeechChoice & { model?: string }): Promise<ReadAloudResult>;
  /** A chunk's audio (a Blob from `files`), or null when it is gone. */
  getAudioFile(fileId: number): Promise<Blob | null>;
  /** Voice mode: a recording to text through the gateway's transcription provider. */
  transcribe(audio: Blob, language?: string): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
  transcriptionConfig(): Promise<TranscribeConfig>;
}
