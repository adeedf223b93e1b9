/**
 * The engine's core: the local database and its event log, the live replies, notices, the session and the model
 * catalogue. Domains (src/worker/commands/*, src/worker/queries/*) are built on it; src/worker/engine.ts composes
 * them into the one engine API (DESIGN rule 12).
 */
import { BehaviorSubject, Subject, filter, firstValueFrom } from 'rxjs';
import {
  ENGINE_PROTOCOL_VERSION,
  type CoreHandlers,
  type EngineStatus,
  type ModelsView,
  type Notice,
  type SessionView,
} from '../protocol/engine';
import { DEFAULT_PREFERENCES, type Preferences } from '../protocol/preferences';
import { makeEvent, type NewEvent } from '../events/catalogue';
import type { MessageRow } from '../events/model';
import { ParleyDB } from './db/schema';
import { installLifecycle, type DbLifecycle, type DbMarker } from './db/lifecycle';
import { appendEvents, ensureProjectionsCurrent, exportLogNdjson, importLogNdjson } from './log';
import { changeOf, EVERYTHING_CHANGED, type Change } from './changes';
import { classifyModelError } from './services/errors';
import { ReplyStreamParser } from './services/stream-parser';
import { gateway, GatewayError } from './services/gateway';
import { onSignedOut } from './services/signed-out';
import { SIGNED_OUT } from '../protocol/api';
import { ACCOUNT_TEXT } from '../protocol/money-text';
import { IdAllocator } from './services/ids';
import { loadPreferences } from './services/preferences';
import { runReply, type LiveReply, type ReplyHost } from './services/reply-runner';
import { waitForNetwork } from './services/network';
import { imageLinesFor } from './services/image-lines';
import { storeReplyImages } from './services/media/reply-images';

/** Spec 000 section 9: stream text updates throttled to 150 ms. */
export const STREAM_THROTTLE_MS = 150;
/** Spec 000/001: paid use needs a balance above this, in USD or nano. */
export const PAID_USE_THRESHOLD = 0.00001;
export const INTERRUPTED_REASON = 'Reply interrupted: the tab that was generating it closed before it finished.';

export interface EngineHooks {
  /** Ask every tab to reload (database version change). */
  requestReload(reason: string, delayMs: number): void;
  /** Ask the tabs to keep a database marker where the next page load sees it (the worker has no localStorage). */
  storeMarker(marker: DbMarker): void;
  /** Database name; tests give each engine its own. Default 'parley'. */
  dbName?: string;
  /** Reply stream inactivity limit (tests shorten it). */
  replyStallMs?: number;
  /** Video status polling interval and timeout (spec 000 section 9: 10 s, 20 min; tests shorten them). */
  videoPollMs?: number;
  videoTimeoutMs?: number;
}

export class EngineCore implements CoreHandlers {
  readonly engineId = crypto.randomUUID();
  db!: ParleyDB;
  private lifecycle: DbLifecycle | null = null;
  ids = new IdAllocator(0);
  private readonly started: Promise<void>;
  /** What each append changed; live queries reload from it. */
  readonly changes$ = new Subject<Change>();
  /** The events of each committed append, in order (services that follow the log, e.g. the search index). */
  readonly events$ = new Subject<readonly NewEvent[]>();
  /** Replies this engine is running, by assistant message id. */
  readonly live = new Map<number, LiveReply>();
  /** A live reply of this conversation (slug) published new text or started or ended. */
  readonly live$ = new Subject<string>();
  readonly session$ = new BehaviorSubject<SessionView>({ session: null, canUsePaidModels: false, error: null });
  readonly models$ = new BehaviorSubject<ModelsView>({ models: [], defaultModel: '', error: null });
  readonly notices$ = new BehaviorSubject<Notice[]>([]);
  /** Current preferences (src/protocol/preferences.ts). */
  readonly preferences$ = new BehaviorSubject<Preferences>(DEFAULT_PREFERENCES);
  readonly status$: BehaviorSubject<EngineStatus>;
  private sessionRefresh: Promise<void> | null = null;
  private modelsLoad: Promise<void> | null = null;
  private sessionRefreshAgain = false;
  /** Stopped on dispose: background pipelines of the domains (video polling). */
  readonly disposers: (() => void)[] = [];
  /**
   * Resumes an orphaned reply of a mode that is not a stream (an Image or Audio mode reply asked again with its
   * requestId); true when it took the reply over. Registered by the mode's commands (commands/media.ts, speech.ts).
   */
  readonly replyResumers = new Map<string, (message: MessageRow) => Promise<boolean>>();

  constructor(protected readonly hooks: EngineHooks) {
    this.status$ = new BehaviorSubject<EngineStatus>({ ready: false, storage: 'ok', engineId: this.engineId });
    // A call refused because another browser signed this one out: the session refresh says so and starts anew.
    this.disposers.push(onSignedOut(() => void this.refreshSession()));
    this.started = this.start();
  }

  /** A timing the engine was started with (tests shorten the video clock). */
  hooksValue<K extends 'videoPollMs' | 'videoTimeoutMs'>(key: K): EngineHooks[K] {
    return this.hooks[key];
  }

  /** The local database can be used (it opened, and no write has failed). */
  get storageOk(): boolean {
    return this.status$.value.storage === 'ok';
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
      // Before anything runs (a resumed reply reads maxTokens), the preferences as the log has them.
      this.preferences$.next(await loadPreferences(this.db));
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
    const resumer = message.mode ? this.replyResumers.get(message.mode) : undefined;
    if (resumer && message.requestId) {
      try {
        if (await resumer(message)) return;
      } catch (error) {
        console.info(`Reply ${message.id} cannot be resumed`, error);
      }
    }
    const reply: LiveReply = {
      messageId: message.id,
      userMessageId: message.parentMessageId ?? 0,
      slug: message.conversationSlug,
      requestId: message.requestId ?? '',
      parser: new ReplyStreamParser(),
      controller: new AbortController(),
      stoppedByUser: false,
      // A reply being continued (reply.continued) resumes after the text it had.
      ...(message.continuedFrom ? { continuation: { ...message.continuedFrom, cost: message.cost ?? 0, outputTokens: message.outputTokens ?? 0 } } : {}),
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
      this.startReply(reply, () => Promise.resolve(body), message.model);
      return;
    }
    const now = Date.now();
    await this.append([makeEvent('reply.interrupted', { messageId: message.id, conversationSlug: message.conversationSlug, reason: INTERRUPTED_REASON, at: now }, crypto.randomUUID(), now)]);
  }

  /** Runs a reply in the background; while it runs, its conversation shows it live. */
  startReply(reply: LiveReply, open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>, model?: string): void {
    // A model that answers in image lines (spec 000 section 7): its text and images are decoded as they arrive.
    // It decodes the whole stream text so far, so a catalogue that arrives after the stream began (a reply resumed
    // while the new engine loads it) still decodes it all.
    if (model !== undefined && !reply.imageLines) {
      const attach = (models: ModelsView['models']) => {
        const lines = imageLinesFor(models, model);
        if (lines) reply.imageLines = lines;
      };
      if (this.models$.value.models.length > 0) attach(this.models$.value.models);
      else void firstValueFrom(this.models$.pipe(filter((m) => m.models.length > 0))).then((m) => attach(m.models));
    }
    this.live.set(reply.messageId, reply);
    this.live$.next(reply.slug);
    // Offline, the reply waits for the network (its message is saved already); Stop ends the wait.
    void waitForNetwork(reply.controller.signal)
      .then(() => runReply(this.replyHost(), reply, open))
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
    for (const stop of this.disposers) stop();
    this.lifecycle?.dispose();
    this.db?.close();
  }

  async handshake(protocolVersion: number): Promise<{ ok: boolean; engineId: string; protocolVersion: number }> {
    await this.started;
    return { ok: protocolVersion === ENGINE_PROTOCOL_VERSION, engineId: this.engineId, protocolVersion: ENGINE_PROTOCOL_VERSION };
  }

  // ---- event log -------------------------------------------------------------------------------------------

  /** The only way anything is written: append events (read models update in the same transaction). */
  async append(events: NewEvent[]): Promise<void> {
    try {
      const db = this.db;
      if (this.lifecycle) await this.lifecycle.withReopen(() => appendEvents(db, events));
      else await appendEvents(db, events);
    } catch (error) {
      this.storageFailed(error);
      throw error;
    }
    this.changes$.next(changeOf(events));
    this.events$.next(events);
  }

  async exportLog(): Promise<string> {
    await this.started;
    return exportLogNdjson(this.db);
  }

  async importLog(ndjson: string): Promise<{ imported: number; skipped: number }> {
    await this.started;
    const result = await importLogNdjson(this.db, ndjson);
    this.changes$.next(EVERYTHING_CHANGED);
    return result;
  }

  // ---- notices ---------------------------------------------------------------------------------------------

  notify(notice: Omit<Notice, 'id'>): void {
    const id = crypto.randomUUID();
    // One notice per title at a time: a repeated failure refreshes it rather than stacking copies. A notice on a
    // topic closes that topic's earlier errors: a success (or a newer error) replaces what it resolves.
    const others = this.notices$.value.filter((n) => n.title !== notice.title && !(notice.topic !== undefined && isStaleError(n, notice.topic)));
    this.notices$.next([...others, { ...notice, id }]);
    if (notice.durationMs !== null) setTimeout(() => void this.dismissNotice(id), notice.durationMs);
  }

  /** Closes a topic's error notices once their cause is gone (a successful retry of the same action). */
  resolveNotices(topic: string): void {
    const kept = this.notices$.value.filter((n) => !isStaleError(n, topic));
    if (kept.length !== this.notices$.value.length) this.notices$.next(kept);
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
      let signedOutOnce = false;
      do {
        this.sessionRefreshAgain = false;
        try {
          const { data } = await gateway.localSession();
          const usd = Number.parseFloat(data.usd_balance);
          const nano = Number.parseFloat(data.nano_balance);
          this.session$.next({ session: data, canUsePaidModels: usd > PAID_USE_THRESHOLD || nano > PAID_USE_THRESHOLD, error: null });
        } catch (error) {
          if (error instanceof GatewayError && error.status === 401 && error.body?.error === SIGNED_OUT) {
            // Another browser signed this one out: said plainly, the old session's figures go, and (the gateway
            // cleared the cookie) the next call starts a new session: once, so a cookie that stays cannot loop.
            this.clearSession();
            this.notify({ title: ACCOUNT_TEXT.signedOutTitle, text: ACCOUNT_TEXT.signedOutText, tone: 'orange', durationMs: null, action: { label: 'Go to wallet', kind: 'wallet' } });
            if (!signedOutOnce) this.sessionRefreshAgain = true;
            signedOutOnce = true;
            continue;
          }
          // Spec 001 section 8: session refresh failures are logged only.
          console.warn('Session refresh failed', error);
          this.session$.next({ ...this.session$.value, error: error instanceof Error ? error.message : String(error) });
        }
      } while (this.sessionRefreshAgain);
      this.sessionRefresh = null;
    })();
    return this.sessionRefresh;
  }

  /** Spec 001 section 4: clearing the session resets all fields (a recovered session replaces this one). */
  clearSession(): void {
    this.session$.next({ session: null, canUsePaidModels: false, error: null });
  }

  /** Loads the catalogue, retrying with backoff (1 s doubling to 30 s) while the gateway cannot answer. */
  loadModels(): Promise<void> {
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

  replyHost(): ReplyHost {
    return {
      append: (events) => this.append(events),
      publish: (reply) => this.live$.next(reply.slug),
      notify: (notice) => this.notify(notice),
      newEventId: () => crypto.randomUUID(),
      now: () => Date.now(),
      // Spec 001: the user pays in USD when the USD balance is above 0, else in XNO (a 402 notice uses it).
      currency: () => (Number.parseFloat(this.session$.value.session?.usd_balance ?? '0') > 0 ? 'USD' : 'XNO'),
      ...(this.hooks.replyStallMs === undefined ? {} : { stallMs: this.hooks.replyStallMs }),
      storeImages: (reply, images, at) => storeReplyImages(this, reply, images, at),
    };
  }
}

/** An error (red or orange) notice on `topic`: closed when the topic's action later succeeds. */
function isStaleError(notice: Notice, topic: string): boolean {
  return notice.topic === topic && (notice.tone === 'red' || notice.tone === 'orange');
}
