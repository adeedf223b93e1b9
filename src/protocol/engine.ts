/**
 * The one typed interface of the engine (the leader tab's dedicated worker), as every tab sees it through Comlink.
 * Subscriptions: the callback is passed as a Comlink proxy; the returned unsubscribe is a Comlink proxy too.
 */
import type { SearchDepth } from './web';
import type { Mode, ModelSettings, QueuedMessage } from '../events/model';
import type { ModelInfo, SessionData } from './api';
import type { Preferences } from './preferences';
import type { LibraryHandlers, LibraryQueries } from './library';
import type { ConsentHandlers, ConsentQueries, FolderHandlers, FolderQueries, UpdatesHandlers, UpdatesQueries } from './account';
import type { ConversationQueries, InstructionQueries, QueueQueries, ConversationHandlers, InstructionHandlers, BranchHandlers, MessageHandlers, QueueHandlers } from './engine-conversations';
import type { MoneyQueries, MoneyHandlers } from './engine-money';
import type { MediaQueries, MediaHandlers, SpeechChoice, SpeechQueries, SpeechHandlers } from './engine-media';
import type { ScratchpadQueries, ExportHandlers, WebHandlers, ScratchpadHandlers, ShareHandlers } from './engine-tools';

// Each domain's views, queries and handlers live in its own module; re-exported so that every import of this path stays.
export type * from './engine-conversations';
export type * from './engine-money';
export type * from './engine-media';
export type * from './engine-tools';

/** Bumped whenever this interface changes shape: a tab whose bundle is stale reloads. */
/** 2: the workspace commands of issue 6 (conversations, presets, queue, message tree). 3: the scratchpad. */
/** 4: the money room of issue 10 (deposits, nano, invitations, auto-recharge, recovery codes). */
/** 5: the conversationUpdates query (a page's live text between whole views) and the modes query. */
/** 6: media (images, video jobs, the gallery, per-model settings). */
/** 7: folders, the updates feed and analytics consent (issue 10 items 7 and 8). */
/** 9: the library and attachments of issue 7, and speech (Read aloud, the Audio and Voice modes, transcription) of issue 9. */
/** 10: a scrape's draft and skipped URLs, the depositNow notice action, a payment's network and USD value, image models' settings. */
/** 11: signOutOtherBrowsers (issue 15 item 9). 12: restoreMessage and the undoMessage notice action (issue 16); the
 * queueTurn query and sendQueuedMessage (a queued message goes through the input, issue 20). */
/** 13: deleteConversations and restoreConversations (a bulk delete with one Undo, issue 16). */
export const ENGINE_PROTOCOL_VERSION = 13;

/** Outcome of a conversation or preset command; `error` is shown to the user as is. */
export type ActionResult = { ok: true } | { ok: false; error: string };

export type NoticeTone = 'red' | 'orange' | 'green' | 'blue';
export interface Notice {
  id: string;
  title: string;
  text: string;
  tone: NoticeTone;
  /** Milliseconds before it closes; null = stays until dismissed. */
  durationMs: number | null;
  /**
   * What the notice is about ('deposit', 'invitation', ...): a later notice on the same topic replaces its earlier
   * error notices, so that a success closes the failure it resolves (issue 16: a later successful deposit closes
   * "Transaction Failed").
   */
  topic?: string;
  action?:
    | { label: string; kind: 'reload' | 'wallet' }
    /** "Go to wallet" that opens the Deposit dialog there (spec 001 section 2: when the caller asks for it). */
    | { label: string; kind: 'deposit' }
    | { label: string; kind: 'undo'; slug: string }
    /** Brings back the conversations of a bulk delete (restoreConversations). */
    | { label: string; kind: 'undoMany'; slugs: string[] }
    /** Brings a deleted message back (restoreMessage). */
    | { label: string; kind: 'undoMessage'; slug: string; deletionId: string }
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
/** The modes this engine can submit in (each mode's handler registers itself: src/worker/rooms/replies/submit-plugins.ts). */
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
  /**
   * A new conversation's instructions (system prompt), chosen before its first message (issue 16): stored on the
   * conversation it creates ('' = the built-in 'Standard'). Absent: the `defaultInstructions` preference. Ignored
   * when `slug` names an existing conversation (its own instructions apply).
   */
  instructions?: string;
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

/** Preferences (src/worker/rooms/preferences/commands.ts), kept in the log. */
export interface PreferencesHandlers {
  /**
   * Changes some preferences; every tab sees the new values through the `preferences` query. Rejects (throws)
   * an unknown field or an invalid value (src/protocol/preferences.ts PREFERENCE_CHECKS); unchanged fields log nothing.
   */
  setPreferences(changes: Partial<Preferences>): Promise<void>;
}

/** Chat: send a message and stop a reply (src/worker/rooms/chat/commands.ts). */
export interface ChatHandlers {
  sendMessage(input: SendMessageInput): Promise<SendMessageResult>;
  stopReply(slug: string): Promise<void>;
}

/**
 * Every command of the engine: one handler type per domain (src/worker/rooms/<domain>/commands.ts), joined here (DESIGN rule 12).
 * A new domain adds its interface to this intersection.
 */
export type CommandHandlers =
  & CoreHandlers
  & PreferencesHandlers
  & ChatHandlers
  & ConversationHandlers
  & InstructionHandlers
  & BranchHandlers
  & MessageHandlers
  & ExportHandlers
  & ShareHandlers
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

