/**
 * Replies in flight, so that a reply outlives the connection that asked for it.
 *
 * The engine runs in the leader tab's worker; when that tab closes, the HTTP stream of a reply in progress goes
 * with it. The gateway keeps relaying the upstream into the reply's buffer for a grace period, and the engine that
 * takes over calls POST /api/stream-gpt/resume with the reply's requestId: it gets everything written so far, then
 * the rest live. If nobody resumes within the grace period, the upstream is abandoned (and charged for what it
 * produced, as for any disconnect). A finished reply stays resumable for a while, so that a takeover that races
 * the end of a reply still gets its text and metadata.
 *
 * Memory is bounded. A finished reply keeps only its text (one string, metadata tag included): nothing of the
 * request or the upstream (its abandon callback, which closes over the whole route scope, is dropped when it
 * ends). The registry counts what it holds (2 bytes per UTF-16 unit plus a fixed overhead per reply) against one
 * budget for all replies; past it, finished replies are forgotten oldest first, before their retention time.
 * In-flight replies are never evicted: they are bounded by the upstreams that feed them.
 *
 * With a shared store (./reply-store.ts, on Postgres) the same replies are also written to the database in
 * batches, so a resume or Stop that lands on another gateway process reaches them (docs/gateway.md).
 */
import type { ReplySink } from './reply-sink';

/** How long a reply with no listener keeps relaying before its upstream is abandoned. */
export const RESUME_GRACE_MS = 20_000;
/** How long a finished reply stays resumable (unless the byte budget forgets it sooner). */
export const RETAIN_FINISHED_MS = 60_000;
/** Default budget for the text of every reply held in memory, in bytes (PARLEY_REPLY_BUFFER_MB). */
export const REPLY_BUFFER_BYTES = 64 * 1024 * 1024;
/** What one reply costs besides its text: its key, map entries and small objects (an upper estimate). */
export const REPLY_OVERHEAD_BYTES = 512;

/**
 * A store shared by gateway processes (./reply-store.ts). The registry tells it what happens to its own replies;
 * writes are buffered there and flushed in batches, never one query per delta.
 */
export interface SharedReplies {
  opened(key: string, reply: InFlightReply): void;
  appended(key: string, text: string): void;
  finished(key: string): void;
  /** Whether a client on another process follows this reply now (so its grace period must not end it). */
  followedElsewhere(key: string): Promise<boolean>;
  /** Whether the store knows this reply (run by any process, in flight or finished and still kept). */
  exists(key: string): Promise<boolean>;
  /** Stop for a reply another process runs; resolves to whether the reply is known. */
  requestCancel(key: string): Promise<boolean>;
  /** Relays a reply another process runs into `sink`, from its first byte to its end (`gone`: the client left). */
  follow(key: string, sink: ReplySink, gone: () => boolean): Promise<void>;
}

export interface ReplyRegistryOptions {
  graceMs?: number;
  retainMs?: number;
  budgetBytes?: number;
}

const textBytes = (text: string): number => text.length * 2;

export class InFlightReply {
  private chunks: string[] = [];
  private listeners: Set<ReplySink> | null = new Set<ReplySink>();
  private graceTimer: ReturnType<typeof setTimeout> | null = null;
  private finished = false;
  private abandoned = false;
  /** Bumped when the chunks are joined into one (attach counts what it sent in characters across that). */
  private generation = 0;
  /** When it finished (Date.now()), for the retention time. */
  finishedAt = 0;
  /** Bytes counted against the registry's budget for this reply. */
  bytes = REPLY_OVERHEAD_BYTES;
  /** No longer held by the registry (replaced under its key, or evicted): its bytes are not counted any more. */
  forgotten = false;

  constructor(
    readonly key: string,
    private readonly registry: ReplyRegistry,
    private onAbandoned: (() => void) | null,
  ) {}

  get done(): boolean {
    return this.finished;
  }

  /** Everything written so far (the whole reply once finished). */
  get text(): string {
    return this.chunks.join('');
  }

  /** Appends to the reply and writes it to every listener (waiting for the slowest: backpressure). */
  async write(text: string): Promise<void> {
    if (text.length === 0 || this.finished) return;
    this.chunks.push(text);
    this.registry.grew(this, text);
    const listeners = this.listeners;
    if (listeners === null || listeners.size === 0) return;
    if (listeners.size === 1) {
      for (const l of listeners) await l.write(text);
    } else {
      await Promise.all([...listeners].map((l) => l.write(text)));
    }
  }

  /** The reply is complete: listeners end, and only its text is kept. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.finishedAt = Date.now();
    this.clearGrace();
    // Drop the route scope (request, upstream) the abandon callback closes over, and keep the text as one string.
    this.onAbandoned = null;
    if (this.chunks.length > 1) {
      this.chunks = [this.chunks.join('')];
      this.generation++;
    }
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const l of listeners) l.end();
  }

  /** Adds a listener: it first gets everything written so far, then follows live; ended at once if finished. */
  async attach(sink: ReplySink): Promise<void> {
    this.clearGrace();
    // Catch up until nothing new arrived during the last write; then join the live listeners in the same turn.
    // Counted in characters too: end() may join the chunks into one while a write waits.
    let sentChunks = 0;
    let sentChars = 0;
    let generation = this.generation;
    for (;;) {
      let backlog: string;
      if (generation !== this.generation) {
        generation = this.generation;
        backlog = this.text.slice(sentChars);
      } else if (sentChunks < this.chunks.length) {
        backlog = sentChunks === 0 && this.chunks.length === 1 ? (this.chunks[0] as string) : this.chunks.slice(sentChunks).join('');
      } else break;
      sentChunks = this.chunks.length;
      if (backlog.length === 0) continue;
      sentChars += backlog.length;
      await sink.write(backlog);
    }
    if (this.finished || this.listeners === null) {
      sink.end();
      return;
    }
    this.listeners.add(sink);
  }

  /** A listener's client went away; with none left, the grace period starts. */
  detach(sink: ReplySink): void {
    const listeners = this.listeners;
    if (listeners === null) return;
    listeners.delete(sink);
    if (listeners.size === 0 && !this.finished && this.graceTimer === null) this.startGrace();
  }

  /** Stop the upstream now (the user pressed Stop, or nobody came back). */
  abandon(): void {
    this.clearGrace();
    if (this.abandoned || this.finished) return;
    this.abandoned = true;
    const onAbandoned = this.onAbandoned;
    this.onAbandoned = null;
    onAbandoned?.();
  }

  private startGrace(): void {
    this.graceTimer = setTimeout(() => {
      this.graceTimer = null;
      if (this.finished || (this.listeners?.size ?? 0) > 0) return;
      // A client following from another gateway process keeps the reply going, as a local listener would.
      void this.registry.followedElsewhere(this.key).then(
        (followed) => {
          if (this.finished || (this.listeners?.size ?? 0) > 0 || this.graceTimer !== null) return;
          if (followed) this.startGrace();
          else this.abandon();
        },
        () => this.abandon(),
      );
    }, this.registry.graceMs);
  }

  private clearGrace(): void {
    if (this.graceTimer !== null) clearTimeout(this.graceTimer);
    this.graceTimer = null;
  }
}

export class ReplyRegistry {
  readonly graceMs: number;
  readonly retainMs: number;
  readonly budgetBytes: number;
  private readonly replies = new Map<string, InFlightReply>();
  /** Finished replies, oldest first (Map keeps insertion order): the eviction queue. */
  private readonly finishedQueue = new Map<string, InFlightReply>();
  private heldBytes = 0;
  private sweepTimer: ReturnType<typeof setInterval> | null = null;
  private shared: SharedReplies | null = null;

  constructor(options: ReplyRegistryOptions = {}) {
    this.graceMs = options.graceMs ?? RESUME_GRACE_MS;
    this.retainMs = options.retainMs ?? RETAIN_FINISHED_MS;
    this.budgetBytes = options.budgetBytes ?? REPLY_BUFFER_BYTES;
  }

  /** Also writes every reply to a store other gateway processes read (./reply-store.ts). */
  share(store: SharedReplies | null): void {
    this.shared = store;
  }

  get sharedStore(): SharedReplies | null {
    return this.shared;
  }

  /** Registers a reply under its charge key (session and requestId). */
  open(key: string, onAbandoned: () => void): InFlightReply {
    const old = this.replies.get(key);
    if (old) this.forget(key, old);
    const reply = new InFlightReply(key, this, onAbandoned);
    this.replies.set(key, reply);
    this.heldBytes += reply.bytes;
    this.shared?.opened(key, reply);
    return reply;
  }

  /** The reply under this key in this process (in flight, or finished and still kept). */
  get(key: string): InFlightReply | undefined {
    return this.replies.get(key);
  }

  /** The reply ended: keep it resumable for a while (or until the budget needs its bytes), then forget it. */
  finish(key: string, reply: InFlightReply): void {
    reply.end();
    if (this.replies.get(key) !== reply) return;
    this.finishedQueue.set(key, reply);
    this.shared?.finished(key);
    this.evict(Date.now());
    if (this.sweepTimer === null) {
      // One timer for all finished replies (not one each), stopped when none is left.
      this.sweepTimer = setInterval(() => this.evict(Date.now()), Math.max(50, Math.min(5000, this.retainMs / 4)));
      this.sweepTimer.unref?.();
    }
  }

  /** @internal InFlightReply.write: count the bytes and pass them on to the shared store. */
  grew(reply: InFlightReply, text: string): void {
    if (reply.forgotten) return;
    const n = textBytes(text);
    reply.bytes += n;
    this.heldBytes += n;
    this.shared?.appended(reply.key, text);
    if (this.heldBytes > this.budgetBytes) this.evict(Date.now());
  }

  /** @internal InFlightReply's grace period: does a client on another process follow it? */
  followedElsewhere(key: string): Promise<boolean> {
    return this.shared ? this.shared.followedElsewhere(key) : Promise.resolve(false);
  }

  /** Forgets finished replies past their retention time, then the oldest ones while over the budget. */
  private evict(now: number): void {
    for (const [key, reply] of this.finishedQueue) {
      if (reply.finishedAt + this.retainMs > now && this.heldBytes <= this.budgetBytes) break;
      this.forget(key, reply);
    }
    if (this.finishedQueue.size === 0 && this.sweepTimer !== null) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
    }
  }

  private forget(key: string, reply: InFlightReply): void {
    if (reply.forgotten) return;
    reply.forgotten = true;
    if (this.replies.get(key) === reply) this.replies.delete(key);
    if (this.finishedQueue.get(key) === reply) this.finishedQueue.delete(key);
    this.heldBytes -= reply.bytes;
  }

  /** Replies held (in flight and finished). */
  get size(): number {
    return this.replies.size;
  }

  /** Bytes held against the budget (text at 2 bytes per UTF-16 unit, plus REPLY_OVERHEAD_BYTES each). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Stops the sweep timer (the gateway is closing). */
  close(): void {
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }
}
