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
 * Per process and in memory: behind a load balancer a resume that lands on another instance answers 404, and the
 * engine then marks the reply interrupted (docs/gateway.md).
 */
import type { ReplySink } from './reply-sink';

/** How long a reply with no listener keeps relaying before its upstream is abandoned. */
export const RESUME_GRACE_MS = 20_000;
/** How long a finished reply stays resumable. */
export const RETAIN_FINISHED_MS = 60_000;

export class InFlightReply {
  private readonly chunks: string[] = [];
  private readonly listeners = new Set<ReplySink>();
  private graceTimer: ReturnType<typeof setTimeout> | null = null;
  private finished = false;
  private abandoned = false;

  constructor(
    private readonly graceMs: number,
    private readonly onAbandoned: () => void,
  ) {}

  get done(): boolean {
    return this.finished;
  }

  /** Appends to the reply and writes it to every listener (waiting for the slowest: backpressure). */
  async write(text: string): Promise<void> {
    if (text.length === 0 || this.finished) return;
    this.chunks.push(text);
    if (this.listeners.size === 1) {
      for (const l of this.listeners) await l.write(text);
    } else if (this.listeners.size > 1) {
      await Promise.all([...this.listeners].map((l) => l.write(text)));
    }
  }

  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.clearGrace();
    for (const l of this.listeners) l.end();
    this.listeners.clear();
  }

  /** Adds a listener: it first gets everything written so far, then follows live; ended at once if finished. */
  async attach(sink: ReplySink): Promise<void> {
    this.clearGrace();
    let sent = 0;
    // Catch up until nothing new arrived during the last write; then join the live listeners in the same turn.
    while (sent < this.chunks.length) {
      const backlog = this.chunks.slice(sent).join('');
      sent = this.chunks.length;
      await sink.write(backlog);
    }
    if (this.finished) {
      sink.end();
      return;
    }
    this.listeners.add(sink);
  }

  /** A listener's client went away; with none left, the grace period starts. */
  detach(sink: ReplySink): void {
    this.listeners.delete(sink);
    if (this.listeners.size === 0 && !this.finished && this.graceTimer === null) {
      this.graceTimer = setTimeout(() => this.abandon(), this.graceMs);
    }
  }

  /** Stop the upstream now (the user pressed Stop, or nobody came back). */
  abandon(): void {
    this.clearGrace();
    if (this.abandoned || this.finished) return;
    this.abandoned = true;
    this.onAbandoned();
  }

  private clearGrace(): void {
    if (this.graceTimer !== null) clearTimeout(this.graceTimer);
    this.graceTimer = null;
  }
}

export class ReplyRegistry {
  private readonly replies = new Map<string, InFlightReply>();

  constructor(
    private readonly graceMs = RESUME_GRACE_MS,
    private readonly retainMs = RETAIN_FINISHED_MS,
  ) {}

  /** Registers a reply under its charge key (session and requestId). */
  open(key: string, onAbandoned: () => void): InFlightReply {
    const reply = new InFlightReply(this.graceMs, onAbandoned);
    this.replies.set(key, reply);
    return reply;
  }

  get(key: string): InFlightReply | undefined {
    return this.replies.get(key);
  }

  /** The reply ended: keep it resumable for a while, then forget it. */
  finish(key: string, reply: InFlightReply): void {
    reply.end();
    const timer = setTimeout(() => {
      if (this.replies.get(key) === reply) this.replies.delete(key);
    }, this.retainMs);
    timer.unref?.();
  }

  get size(): number {
    return this.replies.size;
  }
}
