/**
 * The engine: owns the local database and the event log, runs commands and replies, and serves live queries.
 * One instance runs in the leader tab's dedicated worker; every tab talks to it through Comlink.
 */
import {
  BehaviorSubject,
  Observable,
  Subject,
  asyncScheduler,
  combineLatest,
  defer,
  filter,
  from,
  map,
  startWith,
  switchMap,
  throttleTime,
} from 'rxjs';
import type { ChatMessage, StreamGptRequest } from '../protocol/api';
import {
  ENGINE_PROTOCOL_VERSION,
  type ConversationSummary,
  type ConversationView,
  type EngineStatus,
  type ModelsView,
  type Notice,
  type Query,
  type SendMessageInput,
  type SendMessageResult,
  type SessionView,
} from '../protocol/engine';
import { makeEvent, type NewEvent } from '../events/catalogue';
import type { ConversationRow, MessageRow } from '../events/model';
import { ParleyDB } from './db/schema';
import { installLifecycle, type DbLifecycle, type DbMarker } from './db/lifecycle';
import { appendEvents, ensureProjectionsCurrent, exportLogNdjson, importLogNdjson } from './log';
import { classifyModelError } from './services/errors';
import { ReplyStreamParser } from './services/stream-parser';
import { gateway } from './services/gateway';
import { IdAllocator, defaultName, makeSlug } from './services/ids';
import { MESSAGE_REQUIRED } from './services/messages';
import { DEFAULT_MAX_TOKENS, runReply, type LiveReply, type ReplyHost } from './services/reply-runner';

/** Spec 000 section 9: stream text updates throttled to 150 ms. */
export const STREAM_THROTTLE_MS = 150;
/** Spec 000/001: paid use needs a balance above this, in USD or nano. */
export const PAID_USE_THRESHOLD = 0.00001;
export const INTERRUPTED_REASON = 'Reply interrupted: the tab that was generating it closed before it finished.';
export const REPLY_IN_PROGRESS = 'Please wait for the current response to complete.';

interface Change {
  all: boolean;
  conversations: boolean;
  slugs: Set<string>;
}

function changeOf(events: readonly NewEvent[]): Change {
  const change: Change = { all: false, conversations: false, slugs: new Set() };
  for (const e of events) {
    switch (e.type) {
      case 'conversation.created':
        change.conversations = true;
        change.slugs.add(e.payload.conversation.slug);
        break;
      case 'message.added':
        change.conversations = true;
        change.slugs.add(e.payload.message.conversationSlug);
        break;
      case 'reply.completed':
      case 'reply.failed':
        change.conversations = true;
        change.slugs.add(e.payload.conversationSlug);
        break;
      case 'reply.started':
      case 'reply.checkpointed':
      case 'reply.interrupted':
        change.slugs.add(e.payload.conversationSlug);
        break;
    }
  }
  return change;
}

function promptText(prompt: MessageRow['prompt']): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

function byTime(a: MessageRow, b: MessageRow): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

export interface EngineHooks {
  /** Ask every tab to reload (database version change). */
  requestReload(reason: string, delayMs: number): void;
  /** Ask the tabs to keep a database marker where the next page load sees it (the worker has no localStorage). */
  storeMarker(marker: DbMarker): void;
  /** Database name; tests give each engine its own. Default 'parley'. */
  dbName?: string;
  /** Reply stream inactivity limit (tests shorten it). */
  replyStallMs?: number;
}

export class Engine {
  readonly engineId = crypto.randomUUID();
  private db!: ParleyDB;
  private lifecycle: DbLifecycle | null = null;
  private ids = new IdAllocator(0);
  private readonly started: Promise<void>;
  private readonly changes$ = new Subject<Change>();
  private readonly live = new Map<number, LiveReply>();
  private readonly live$ = new Subject<string>();
  private readonly session$ = new BehaviorSubject<SessionView>({ session: null, canUsePaidModels: false, error: null });
  private readonly models$ = new BehaviorSubject<ModelsView>({ models: [], defaultModel: '', error: null });
  private readonly notices$ = new BehaviorSubject<Notice[]>([]);
  private readonly status$: BehaviorSubject<EngineStatus>;
  private sessionRefresh: Promise<void> | null = null;
  private modelsLoad: Promise<void> | null = null;
  private sessionRefreshAgain = false;

  constructor(private readonly hooks: EngineHooks) {
    this.status$ = new BehaviorSubject<EngineStatus>({ ready: false, storage: 'ok', engineId: this.engineId });
    this.started = this.start();
  }

  // ---- lifecycle -------------------------------------------------------------------------------------------

  private async start(): Promise<void> {
    // The catalogue needs the session cookie, which the first session call sets.
    void this.refreshSession().then(() => this.loadModels());
    try {
      this.db = new ParleyDB(this.hooks.dbName);
      this.lifecycle = installLifecycle(this.db, {
        storeMarker: (marker) => this.hooks.storeMarker(marker),
        onReloadRequested: (marker) => this.hooks.requestReload(`database ${marker.kind}`, 0),
      });
      await this.db.open();
      await ensureProjectionsCurrent(this.db);
      const lastConversation = await this.db.conversations.orderBy(':id').last();
      const lastMessage = await this.db.messages.orderBy(':id').last();
      this.ids = new IdAllocator(Math.max(lastConversation?.id ?? 0, lastMessage?.id ?? 0));
      await this.resumeOrphanedReplies();
      this.status$.next({ ...this.status$.value, ready: true });
    } catch (error) {
      this.storageFailed(error);
    }
  }

  /**
   * Replies left pending or streaming by an engine that went away (its tab closed) are picked up again: the
   * gateway kept relaying them, and a resume replays each from its first byte and follows it to the end. One the
   * gateway no longer has (restarted, expired, another instance) is marked interrupted, keeping its checkpoint.
   */
  private async resumeOrphanedReplies(): Promise<void> {
    const orphans = await this.db.messages.filter((m) => m.role === 'assistant' && (m.status === 'pending' || m.status === 'streaming')).toArray();
    await Promise.all(orphans.map((m) => this.resumeOrInterrupt(m)));
  }

  private async resumeOrInterrupt(message: MessageRow): Promise<void> {
    const reply: LiveReply = {
      messageId: message.id,
      userMessageId: message.parentMessageId ?? 0,
      slug: message.conversationSlug,
      requestId: message.requestId ?? '',
      parser: new ReplyStreamParser(),
      controller: new AbortController(),
      stoppedByUser: false,
    };
    let stream: ReadableStream<Uint8Array> | null = null;
    if (reply.requestId) {
      try {
        stream = await gateway.resumeReply(reply.requestId, reply.controller.signal);
      } catch (error) {
        console.info(`Reply ${message.id} cannot be resumed`, error);
      }
    }
    if (stream) {
      const body = stream;
      this.startReply(reply, () => Promise.resolve(body));
      return;
    }
    const now = Date.now();
    await this.append([makeEvent('reply.interrupted', { messageId: message.id, conversationSlug: message.conversationSlug, reason: INTERRUPTED_REASON, at: now }, crypto.randomUUID(), now)]);
  }

  /** Runs a reply in the background; while it runs, its conversation shows it live. */
  private startReply(reply: LiveReply, open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>): void {
    this.live.set(reply.messageId, reply);
    this.live$.next(reply.slug);
    void runReply(this.replyHost(), reply, open)
      .catch((error: unknown) => console.error('Reply failed to record', error))
      .finally(() => {
        this.live.delete(reply.messageId);
        this.live$.next(reply.slug);
        void this.refreshSession();
      });
  }

  private storageFailed(error: unknown): void {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error('Local database failure', error);
    this.status$.next({ ...this.status$.value, ready: true, storage: 'unavailable' });
    this.notify(classifyModelError({ message: `IndexedDB error: ${detail}` }));
  }

  /** Resolves once the database is open and orphaned replies are settled. */
  whenStarted(): Promise<void> {
    return this.started;
  }

  /** Stops replies and closes the database (tests; a real engine ends with its tab). */
  async dispose(): Promise<void> {
    await this.started;
    for (const reply of this.live.values()) reply.controller.abort();
    this.lifecycle?.dispose();
    this.db?.close();
  }

  async handshake(protocolVersion: number): Promise<{ ok: boolean; engineId: string; protocolVersion: number }> {
    await this.started;
    return { ok: protocolVersion === ENGINE_PROTOCOL_VERSION, engineId: this.engineId, protocolVersion: ENGINE_PROTOCOL_VERSION };
  }

  // ---- event log -------------------------------------------------------------------------------------------

  /** The only way anything is written: append events (read models update in the same transaction). */
  private async append(events: NewEvent[]): Promise<void> {
    try {
      const db = this.db;
      if (this.lifecycle) await this.lifecycle.withReopen(() => appendEvents(db, events));
      else await appendEvents(db, events);
    } catch (error) {
      this.storageFailed(error);
      throw error;
    }
    this.changes$.next(changeOf(events));
  }

  async exportLog(): Promise<string> {
    await this.started;
    return exportLogNdjson(this.db);
  }

  async importLog(ndjson: string): Promise<{ imported: number; skipped: number }> {
    await this.started;
    const result = await importLogNdjson(this.db, ndjson);
    this.changes$.next({ all: true, conversations: true, slugs: new Set() });
    return result;
  }

  // ---- queries ---------------------------------------------------------------------------------------------

  observe(query: Query): Observable<unknown> {
    switch (query.kind) {
      case 'conversations':
        return this.changes$.pipe(
          filter((c) => c.all || c.conversations),
          startWith(null),
          throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
          switchMap(() => defer(() => from(this.loadConversations()))),
        );
      case 'conversation':
        return this.observeConversation(query.slug);
      case 'session':
        return this.session$;
      case 'models':
        return this.models$;
      case 'notices':
        return this.notices$;
      case 'status':
        return this.status$;
    }
  }

  private observeConversation(slug: string): Observable<ConversationView | null> {
    const rows$ = this.changes$.pipe(
      filter((c) => c.all || c.slugs.has(slug)),
      startWith(null),
      switchMap(() => defer(() => from(this.loadConversation(slug)))),
    );
    const live$ = this.live$.pipe(filter((s) => s === slug), startWith(slug));
    return combineLatest([rows$, live$]).pipe(
      throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
      map(([rows]) => this.conversationView(rows)),
    );
  }

  private async loadConversations(): Promise<ConversationSummary[]> {
    await this.started;
    if (this.status$.value.storage !== 'ok') return [];
    const rows = await this.db.conversations.orderBy('updatedAt').reverse().toArray();
    return rows.map((c) => ({ id: c.id, slug: c.slug, name: c.name, updatedAt: c.updatedAt, latestMessage: c.latestMessage }));
  }

  private async loadConversation(slug: string): Promise<{ conversation: ConversationRow; messages: MessageRow[] } | null> {
    await this.started;
    if (this.status$.value.storage !== 'ok') return null;
    const conversation = await this.db.conversations.where('slug').equals(slug).first();
    if (!conversation) return null;
    const messages = await this.db.messages.where('conversationSlug').equals(slug).toArray();
    messages.sort(byTime);
    return { conversation, messages };
  }

  private conversationView(rows: { conversation: ConversationRow; messages: MessageRow[] } | null): ConversationView | null {
    if (!rows) return null;
    let pending = false;
    const messages = rows.messages.map((m) => {
      const live = this.live.get(m.id);
      if (live) {
        pending = true;
        // Read the parser only here, at the throttled publish, not after every network chunk.
        const text = live.parser.text;
        const thinking = live.parser.thinking;
        const started = text.length > 0 || thinking.length > 0;
        return { ...m, text, thinking, status: started ? ('streaming' as const) : ('pending' as const) };
      }
      return { ...m, text: promptText(m.prompt) };
    });
    return { conversation: rows.conversation, messages, pending };
  }

  // ---- notices ---------------------------------------------------------------------------------------------

  notify(notice: Omit<Notice, 'id'>): void {
    const id = crypto.randomUUID();
    // One notice per title at a time: a repeated failure refreshes it rather than stacking copies.
    const others = this.notices$.value.filter((n) => n.title !== notice.title);
    this.notices$.next([...others, { ...notice, id }]);
    if (notice.durationMs !== null) setTimeout(() => void this.dismissNotice(id), notice.durationMs);
  }

  async dismissNotice(id: string): Promise<void> {
    this.notices$.next(this.notices$.value.filter((n) => n.id !== id));
  }

  // ---- session and models ----------------------------------------------------------------------------------

  /** Spec 001 section 4: refreshes arriving during a refresh are coalesced into one follow-up refresh. */
  refreshSession(): Promise<void> {
    if (this.sessionRefresh) {
      this.sessionRefreshAgain = true;
      return this.sessionRefresh;
    }
    this.sessionRefresh = (async () => {
      do {
        this.sessionRefreshAgain = false;
        try {
          const { data } = await gateway.localSession();
          const usd = Number.parseFloat(data.usd_balance);
          const nano = Number.parseFloat(data.nano_balance);
          this.session$.next({ session: data, canUsePaidModels: usd > PAID_USE_THRESHOLD || nano > PAID_USE_THRESHOLD, error: null });
        } catch (error) {
          // Spec 001 section 8: session refresh failures are logged only.
          console.warn('Session refresh failed', error);
          this.session$.next({ ...this.session$.value, error: error instanceof Error ? error.message : String(error) });
        }
      } while (this.sessionRefreshAgain);
      this.sessionRefresh = null;
    })();
    return this.sessionRefresh;
  }

  /** Loads the catalogue, retrying with backoff (1 s doubling to 30 s) while the gateway cannot answer. */
  private loadModels(): Promise<void> {
    this.modelsLoad ??= (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          if (attempt > 0 && this.session$.value.session === null) await this.refreshSession();
          const { models, defaultModel } = await gateway.models();
          this.models$.next({ models, defaultModel, error: null });
          return;
        } catch (error) {
          this.models$.next({ ...this.models$.value, error: error instanceof Error ? error.message : String(error) });
          await new Promise((r) => setTimeout(r, Math.min(30_000, 1000 * 2 ** attempt)));
        }
      }
    })().finally(() => {
      this.modelsLoad = null;
    });
    return this.modelsLoad;
  }

  // ---- commands --------------------------------------------------------------------------------------------

  async sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
    await this.started;
    if (this.status$.value.storage !== 'ok') return { ok: false, error: 'Local storage unavailable', notified: true };
    const prompt = input.prompt.trim();
    if (prompt === '') return { ok: false, error: MESSAGE_REQUIRED };
    if (this.models$.value.models.length === 0) await this.loadModels();
    // A prompt sent before the tab had the catalogue (or with no choice made) goes to the default model.
    const wanted = input.model || this.models$.value.defaultModel;
    const model = this.models$.value.models.find((m) => m.id === wanted);
    if (!model) return { ok: false, error: `Unknown model: ${input.model}` };
    if (this.session$.value.session === null) await this.refreshSession();
    if (!model.free && !this.session$.value.canUsePaidModels) {
      this.notify(classifyModelError({ status: 402, code: 'INSUFFICIENT_BALANCE', body: { requiredBalance: '0.00001' } }));
      return { ok: false, error: 'Insufficient balance', notified: true };
    }

    const now = Date.now();
    const events: NewEvent[] = [];
    let conversation = input.slug ? await this.db.conversations.where('slug').equals(input.slug).first() : undefined;
    if (input.slug && !conversation) return { ok: false, error: 'Conversation not found' };
    if (conversation && [...this.live.values()].some((r) => r.slug === conversation?.slug)) {
      return { ok: false, error: REPLY_IN_PROGRESS };
    }
    let history: MessageRow[] = [];
    if (!conversation) {
      conversation = {
        id: this.ids.next(now),
        uuid: crypto.randomUUID(),
        slug: makeSlug(prompt, crypto.getRandomValues(new Uint8Array(7))),
        name: defaultName(prompt),
        createdAt: now,
        updatedAt: now,
        latestMessage: '',
        isMediaOnly: false,
      };
      events.push(makeEvent('conversation.created', { conversation }, crypto.randomUUID(), now));
    } else {
      history = await this.db.messages.where('conversationSlug').equals(conversation.slug).toArray();
      history.sort(byTime);
    }
    const slug = conversation.slug;
    const branch = { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: now };
    const user: MessageRow = {
      id: this.ids.next(now),
      conversationSlug: slug,
      timestamp: now,
      role: 'user',
      prompt,
      model: model.id,
      mode: 'chat',
      status: 'done',
      parentMessageId: history.at(-1)?.id ?? null,
      ...branch,
    };
    const assistant: MessageRow = {
      id: this.ids.next(now),
      conversationSlug: slug,
      timestamp: now + 1,
      role: 'assistant',
      prompt: '',
      model: model.id,
      mode: 'chat',
      status: 'pending',
      parentMessageId: user.id,
      ...branch,
      updatedAt: now + 1,
    };
    const requestId = crypto.randomUUID();
    events.push(
      makeEvent('message.added', { message: user }, crypto.randomUUID(), now),
      makeEvent('message.added', { message: assistant }, crypto.randomUUID(), now),
      makeEvent('reply.started', { messageId: assistant.id, conversationSlug: slug, model: model.id, requestId, at: now }, crypto.randomUUID(), now),
    );

    const reply: LiveReply = { messageId: assistant.id, userMessageId: user.id, slug, requestId, parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
    // Live before the append commits, so that the view shows the new reply as pending, never as an empty stream.
    this.live.set(reply.messageId, reply);
    try {
      await this.append(events);
    } catch {
      this.live.delete(reply.messageId);
      return { ok: false, error: 'Local storage unavailable', notified: true };
    }

    const request: StreamGptRequest = {
      model: model.id,
      messages: [...history, user].filter((m) => m.status === 'done' && !m.hasError).map(toChatMessage),
      conversationUUID: conversation.uuid,
      requestId,
      maxTokens: DEFAULT_MAX_TOKENS,
    };
    this.startReply(reply, (signal) => gateway.streamReply(request, signal));
    return { ok: true, slug, userMessageId: user.id };
  }

  async stopReply(slug: string): Promise<void> {
    for (const reply of this.live.values()) {
      if (reply.slug !== slug) continue;
      reply.stoppedByUser = true;
      // Tell the gateway first: a dropped connection alone keeps the upstream going for a possible resume.
      if (reply.requestId) void gateway.cancelReply(reply.requestId).catch(() => undefined);
      reply.controller.abort();
    }
  }

  private replyHost(): ReplyHost {
    return {
      append: (events) => this.append(events),
      publish: (reply) => this.live$.next(reply.slug),
      notify: (notice) => this.notify(notice),
      newEventId: () => crypto.randomUUID(),
      now: () => Date.now(),
      ...(this.hooks.replyStallMs === undefined ? {} : { stallMs: this.hooks.replyStallMs }),
    };
  }
}

function toChatMessage(m: MessageRow): ChatMessage {
  return { role: m.role, content: m.prompt };
}
