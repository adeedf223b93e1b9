/**
 * The one typed interface of the engine (the leader tab's dedicated worker), as every tab sees it through Comlink.
 * Subscriptions: the callback is passed as a Comlink proxy; the returned unsubscribe is a Comlink proxy too.
 */
import type { ConversationRow, MessageRow } from '../events/model';
import type { ModelInfo, SessionData } from './api';

/** Bumped whenever this interface changes shape: a tab whose bundle is stale reloads. */
export const ENGINE_PROTOCOL_VERSION = 1;

export interface ConversationSummary {
  id: number;
  slug: string;
  name: string;
  updatedAt: number;
  latestMessage: string;
}

/** A message as the view renders it: the stored row, with live text for a reply that is streaming. */
export type MessageView = MessageRow & { text: string };

export interface ConversationView {
  conversation: ConversationRow;
  messages: MessageView[];
  /** A reply is being generated in this conversation. */
  pending: boolean;
}

export type NoticeTone = 'red' | 'orange' | 'green' | 'blue';
export interface Notice {
  id: string;
  title: string;
  text: string;
  tone: NoticeTone;
  /** Milliseconds before it closes; null = stays until dismissed. */
  durationMs: number | null;
  action?: { label: string; kind: 'reload' | 'wallet' };
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

export type Query =
  | { kind: 'conversations' }
  | { kind: 'conversation'; slug: string }
  | { kind: 'session' }
  | { kind: 'models' }
  | { kind: 'notices' }
  | { kind: 'status' };

export type QueryResult<Q extends Query> = Q extends { kind: 'conversations' }
  ? ConversationSummary[]
  : Q extends { kind: 'conversation' }
    ? ConversationView | null
    : Q extends { kind: 'session' }
      ? SessionView
      : Q extends { kind: 'models' }
        ? ModelsView
        : Q extends { kind: 'notices' }
          ? Notice[]
          : Q extends { kind: 'status' }
            ? EngineStatus
            : never;

export interface SendMessageInput {
  /** Existing conversation slug, or null to create a new conversation. */
  slug: string | null;
  prompt: string;
  model: string;
}

export type SendMessageResult =
  | { ok: true; slug: string; userMessageId: number }
  /** notified: the engine already raised a notice for this failure, so the tab shows nothing more. */
  | { ok: false; error: string; notified?: boolean };

export interface EngineApi {
  handshake(protocolVersion: number): Promise<{ ok: boolean; engineId: string; protocolVersion: number }>;
  subscribe<Q extends Query>(query: Q, callback: (value: QueryResult<Q>) => void): Promise<() => void>;
  sendMessage(input: SendMessageInput): Promise<SendMessageResult>;
  stopReply(slug: string): Promise<void>;
  dismissNotice(id: string): Promise<void>;
  refreshSession(): Promise<void>;
  /** The whole event log as NDJSON (header line first). */
  exportLog(): Promise<string>;
  /** Append the events of an NDJSON log that this log does not have yet; rebuilds read models. */
  importLog(ndjson: string): Promise<{ imported: number; skipped: number }>;
}
