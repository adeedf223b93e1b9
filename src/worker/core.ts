/**
 * The engine's core: the local database and its event log, notices, the session and the model catalogue, and the
 * rooms (one per domain, src/worker/rooms/<domain>/) made with the engine and disposed with it.
 * src/worker/engine.ts composes the rooms' commands and queries into the one engine API (DESIGN rule 12).
 */
import { BehaviorSubject, Subject } from 'rxjs';
import {
  ENGINE_PROTOCOL_VERSION,
  type CoreHandlers,
  type EngineStatus,
  type ModelsView,
  type Notice,
  type SessionView,
} from '../protocol/engine';
import { DEFAULT_PREFERENCES, type Preferences } from '../protocol/preferences';
import type { NewEvent } from '../events/catalogue';
import { ParleyDB } from './db/schema';
import { installLifecycle, type DbLifecycle, type DbMarker } from './db/lifecycle';
import { appendEvents, ensureProjectionsCurrent, exportLogNdjson, importLogNdjson } from './log';
import { changeOf, EVERYTHING_CHANGED, type Change } from './changes';
import { classifyModelError } from './infra/errors';
import { gateway, GatewayError } from './infra/gateway';
import { onSignedOut } from './infra/signed-out';
import { SIGNED_OUT } from '../protocol/api';
import { ACCOUNT_TEXT } from '../protocol/money-text';
import { IdAllocator } from './infra/ids';
import { loadPreferences } from './db/preferences';

/** Spec 000 section 9: stream text updates throttled to 150 ms. */
export const STREAM_THROTTLE_MS = 150;
/** Spec 000/001: paid use needs a balance above this, in USD or nano. */
export const PAID_USE_THRESHOLD = 0.00001;

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
  /** How long a queued message offered to a tab waits before the engine sends it (rooms/queue/offers.ts; tests shorten it). */
  queueOfferMs?: number;
}

/**
 * A room: one domain's state and pipelines for one engine (its loops, timers, sockets and streams). Created with
 * the engine (engine.ts asks for every room while it composes the API) and disposed with it, newest first, before
 * the database closes: a room stops everything it started in dispose.
 */
export interface Room {
  dispose(): void;
}

/** How a domain's room is made; `core.room(kind)` gives this engine's one instance. */
export interface RoomKind<T extends Room> {
  readonly name: string;
  create(core: EngineCore): T;
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
  readonly session$ = new BehaviorSubject<SessionView>({ session: null, canUsePaidModels: false, error: null });
  readonly models$ = new BehaviorSubject<ModelsView>({ models: [], defaultModel: '', error: null });
  readonly notices$ = new BehaviorSubject<Notice[]>([]);
  /** Current preferences (src/protocol/preferences.ts). */
  readonly preferences$ = new BehaviorSubject<Preferences>(DEFAULT_PREFERENCES);
  readonly status$: BehaviorSubject<EngineStatus>;
  private sessionRefresh: Promise<void> | null = null;
  private modelsLoad: Promise<void> | null = null;
  private sessionRefreshAgain = false;
  /** This engine's rooms, in the order they were made (disposed newest first). */
  private readonly rooms = new Map<RoomKind<Room>, Room>();
  /** Each timed notice's closing timer, cleared when it closes or the engine ends. */
  private readonly noticeTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private disposed = false;
  /** Aborted on dispose: ends the engine's own waits (the catalogue's retry backoff). */
  private readonly life = new AbortController();
  /** The end of the write queue (never rejects): see inOrder. */
  private writeTail: Promise<unknown> = Promise.resolve();
  private readonly stopSignedOut: () => void;

  constructor(protected readonly hooks: EngineHooks) {
    this.status$ = new BehaviorSubject<EngineStatus>({ ready: false, storage: 'ok', engineId: this.engineId });
    // A call refused because another browser signed this one out: the session refresh says so and starts anew.
    this.stopSignedOut = onSignedOut(() => void this.refreshSession());
    this.started = this.start();
  }

  /**
   * Writes in order: a writing command's read, validate and append run after every write that arrived before it,
   * from whichever tab, and before any that arrives after (engine.ts wraps the local writing commands). Reads do
   * not wait. A section must not wait on the network, or on another section (it would wait for itself).
   */
  inOrder<T>(section: () => Promise<T>): Promise<T> {
    const run = this.writeTail.then(section);
    this.writeTail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every write queued so far has finished (a command that waits on the network reads after them). */
  writesSettled(): Promise<void> {
    return this.writeTail.then(() => undefined);
  }

  /** This engine's room of a domain, made on first use (engine.ts makes every room while it composes). */
  room<T extends Room>(kind: RoomKind<T>): T {
    // A disposed engine still answers with the room it had (a late callback finds it stopped).
    let room = this.rooms.get(kind);
    if (!room) {
      if (this.disposed) throw new Error(`Engine disposed: no ${kind.name} room`);
      room = kind.create(this);
      this.rooms.set(kind, room);
    }
    return room as T;
  }

  /** A timing the engine was started with (tests shorten the video clock and the reply stall limit). */
  hooksValue<K extends 'videoPollMs' | 'videoTimeoutMs' | 'replyStallMs' | 'queueOfferMs'>(key: K): EngineHooks[K] {
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
      await this.resumeWork();
      this.status$.next({ ...this.status$.value, ready: true });
    } catch (error) {
      this.storageFailed(error);
    }
  }

  /** What the composed engine does once the database is open, before it says ready (engine.ts: resume replies). */
  protected resumeWork(): Promise<void> {
    return Promise.resolve();
  }

  private storageFailed(error: unknown): void {
    // The database closed because the engine ended (a leader tab handing over): not a storage failure.
    if (this.disposed) return;
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error('Local database failure', error);
    this.status$.next({ ...this.status$.value, ready: true, storage: 'unavailable' });
    this.notify(classifyModelError({ message: `IndexedDB error: ${detail}` }));
  }

  /**
   * The engine was disposed. Work it started that fails after that (its database closed under it) is not an error
   * to report: the next engine resumes it from the log.
   */
  get ended(): boolean {
    return this.disposed;
  }

  /** Resolves once the database is open and orphaned replies are settled. */
  whenStarted(): Promise<void> {
    return this.started;
  }

  /** Stops replies and closes the database (tests; a real engine ends with its tab). */
  async dispose(): Promise<void> {
    await this.started;
    this.disposed = true;
    this.life.abort();
    this.stopSignedOut();
    // A notice's closing timer ends with the engine (up to 300 s would outlive it otherwise).
    for (const timer of this.noticeTimers.values()) clearTimeout(timer);
    this.noticeTimers.clear();
    for (const room of [...this.rooms.values()].reverse()) room.dispose();
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
    if (notice.durationMs !== null) this.noticeTimers.set(id, setTimeout(() => void this.dismissNotice(id), notice.durationMs));
  }

  /** Closes a topic's error notices once their cause is gone (a successful retry of the same action). */
  resolveNotices(topic: string): void {
    const kept = this.notices$.value.filter((n) => !isStaleError(n, topic));
    if (kept.length !== this.notices$.value.length) this.notices$.next(kept);
  }

  async dismissNotice(id: string): Promise<void> {
    clearTimeout(this.noticeTimers.get(id));
    this.noticeTimers.delete(id);
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
          if (this.disposed) return;
          this.models$.next({ ...this.models$.value, error: error instanceof Error ? error.message : String(error) });
          // The backoff ends with the engine: a disposed engine (a leader tab handing over, a test) asks no more.
          const signal = this.life.signal;
          await new Promise<void>((r) => {
            const timer = setTimeout(r, Math.min(30_000, 1000 * 2 ** attempt));
            signal.addEventListener('abort', () => (clearTimeout(timer), r()), { once: true });
          });
          if (this.disposed) return;
        }
      }
    })().finally(() => {
      this.modelsLoad = null;
    });
    return this.modelsLoad;
  }
}

/** An error (red or orange) notice on `topic`: closed when the topic's action later succeeds. */
function isStaleError(notice: Notice, topic: string): boolean {
  return notice.topic === topic && (notice.tone === 'red' || notice.tone === 'orange');
}
