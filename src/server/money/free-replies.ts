/**
 * The $0 ledger entries of free replies, written behind in batches (docs/gateway.md "What is charged"). A free
 * reply moves no money: its entry only records the reply and counts it (`num_replies`), so it need not sit on
 * the reply's path. Replies record it here and go on; every FLUSH_MS (or at MAX_BATCH entries) one statement
 * writes a batch of at most MAX_BATCH: the entries (`ON CONFLICT (idempotency_key) DO NOTHING`, so a key is counted
 * once) and the reply counts of their sessions. Batches stay small and the event loop runs between two of them:
 * on PGlite a statement holds the gateway's only thread (about 3 ms for 128 entries, 64 ms was seen for 2,000).
 *
 * What this keeps:
 *  - money: none moves; balances and holds never wait on this;
 *  - a key is still never reused: the requestId binding (body/request-binding.ts) is written before the reply
 *    starts, and it refuses a reuse with another model or body whether or not the $0 entry is written yet;
 *  - a session reads its own replies: GET /auth/local-session flushes that session's pending entries first;
 *  - a failed write is retried with the next batch (the entries stay queued, at most MAX_QUEUED of them);
 *  - an entry of a session deleted meanwhile (expiry) is dropped (the JOIN on sessions);
 *  - on close, what is queued is written. A gateway killed outright loses at most FLUSH_MS of $0 entries: reply
 *    counts, never money.
 */
import type { Queryable } from '../db/types';

export const FLUSH_MS = 100;
/** Entries per statement, and how many queued start a write before the timer. */
export const MAX_BATCH = 128;
/** Past this many queued entries (the database is failing), the oldest are dropped and logged. */
const MAX_QUEUED = 100_000;

interface Entry {
  k: string;
  s: string;
  n: string | null;
}

const WRITE_SQL = `WITH x AS (
    SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS x(k text, s text, n text)
  ), ins AS (
    INSERT INTO ledger_entries (idempotency_key, session_id, kind, requested_usd_micro, status, source,
      usd_after_micro, nano_after_raw, counts_reply, note)
    SELECT x.k, s.id, 'charge', 0, 'applied', 'none', s.usd_micro, s.nano_raw, true, x.n
    FROM x JOIN sessions s ON s.id = x.s
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING session_id
  ), c AS (
    SELECT session_id, count(*)::int AS n FROM ins GROUP BY session_id
  )
  UPDATE sessions SET num_replies = sessions.num_replies + c.n FROM c WHERE sessions.id = c.session_id`;

export class FreeReplyLog {
  private queued = new Map<string, Entry>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<void> | null = null;
  /** A flush asked for while one writes: runs once after it. */
  private again: Promise<void> | null = null;
  private closed = false;
  /** After a failed write, batches wait for the retry timer rather than going at MAX_BATCH. */
  private backoffUntil = 0;

  constructor(
    private readonly db: Queryable,
    private readonly log: (line: string) => void = () => {},
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Records a free reply under its charge key; written with the next batch. */
  record(sessionId: string, key: string, note: string | null): void {
    if (this.queued.has(key)) return;
    this.queued.set(key, { k: key, s: sessionId, n: note });
    if (this.queued.size > MAX_QUEUED) {
      const oldest = this.queued.keys().next().value as string;
      this.queued.delete(oldest);
      this.log(`free replies: dropped the $0 entry '${oldest}' (over ${MAX_QUEUED} queued; is the database down?)`);
    }
    if (this.closed) return;
    if (this.queued.size >= MAX_BATCH && Date.now() >= this.backoffUntil) void this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref?.();
    }
  }

  /** Whether a reply of this session waits to be written. */
  pendingFor(sessionId: string): boolean {
    for (const e of this.queued.values()) if (e.s === sessionId) return true;
    return false;
  }

  /** Writes what is queued now (after a write under way); failures are logged and the entries kept. */
  flush(): Promise<void> {
    if (this.writing) {
      // After the write under way, and after the event loop has run once (a batch holds PGlite's thread).
      this.again ??= this.writing
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(() => {
          this.again = null;
          return this.flush();
        });
      return this.again;
    }
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queued.size === 0) return Promise.resolve();
    const batch: Entry[] = [];
    for (const e of this.queued.values()) {
      batch.push(e);
      if (batch.length >= MAX_BATCH) break;
    }
    for (const e of batch) this.queued.delete(e.k);
    const writing = this.write(batch).finally(() => {
      this.writing = null;
    });
    this.writing = writing;
    return writing;
  }

  private async write(batch: Entry[]): Promise<void> {
    try {
      await this.db.query(WRITE_SQL, [JSON.stringify(batch)]);
    } catch (e) {
      this.log(`free replies: writing ${batch.length} $0 entries failed (kept for the next batch): ${e instanceof Error ? e.message : String(e)}`);
      const rest = this.queued;
      this.queued = new Map(batch.map((b) => [b.k, b]));
      for (const [k, v] of rest) this.queued.set(k, v);
      this.backoffUntil = Date.now() + this.flushMs * 10;
      if (!this.closed && this.timer === null) {
        this.timer = setTimeout(() => {
          this.timer = null;
          void this.flush();
        }, this.flushMs * 10);
        this.timer.unref?.();
      }
    }
  }

  /** Writes queued entries, batch by batch, until none of this session's is left (or a write fails). */
  async flushFor(sessionId: string): Promise<void> {
    if (this.writing) await this.writing;
    while (this.pendingFor(sessionId) && Date.now() >= this.backoffUntil) await this.flush();
  }

  /** Writes what is left; later records are written by a last flush only. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const failedBefore = this.backoffUntil;
    while (this.queued.size > 0 && this.backoffUntil === failedBefore) await this.flush();
  }
}
