/**
 * The $0 ledger entries of free replies, written behind in batches (docs/gateway.md "What is charged"). A free
 * reply moves no money: its entry only records the reply and counts it (`num_replies`), so it need not sit on
 * the reply's path. Replies record it here and go on; every 100 ms (or at 128 entries) one statement
 * writes a batch of at most 128 (db/write-behind.ts): the entries (`ON CONFLICT (idempotency_key) DO NOTHING`, so a key is counted
 * once) and the reply counts of their sessions. Batches stay small and the event loop runs between two of them:
 * a statement holds PGlite's thread (about 3 ms for 128 entries, 64 ms was seen for 2,000), which is the event loop's
 * when PGlite runs in memory (db/pglite-thread.ts).
 *
 * What this keeps:
 *  - money: none moves; balances and holds never wait on this;
 *  - a key is still never reused: the requestId binding (body/request-binding.ts) is decided before the reply
 *    starts, and it refuses a reuse with another model or body whether or not the $0 entry is written yet. On the
 *    embedded database a binding is itself written behind: a batch of entries waits until the bindings decided
 *    before it are in the database (`writeAfter`), so no $0 entry is ever there without its binding (which would
 *    let a later paid reply under the same key settle against that $0 entry, unpaid);
 *  - a session reads its own replies: GET /auth/local-session flushes that session's pending entries first;
 *  - a failed write is retried with the next batch (the entries stay queued, at most MAX_QUEUED of them);
 *  - an entry of a session deleted meanwhile (expiry) is dropped (the JOIN on sessions);
 *  - on close, what is queued is written. A gateway killed outright loses at most 100 ms of $0 entries: reply
 *    counts, never money.
 */
import type { Queryable } from '../db/types';
import { WRITE_BEHIND_BATCH, WRITE_BEHIND_MS, WriteBehind } from '../db/write-behind';
import { jsonParam } from '../db/json-param';
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
  private readonly queue: WriteBehind<Entry>;
  /** What must be in the database before a batch of entries is (the requestId bindings of their replies). */
  private readonly before: (() => Promise<boolean>)[] = [];

  constructor(
    private readonly db: Queryable,
    private readonly log: (line: string) => void = () => {},
    flushMs = WRITE_BEHIND_MS,
  ) {
    this.queue = new WriteBehind((batch) => this.write(batch), { name: 'free replies', what: '$0 entries', flushMs, maxBatch: WRITE_BEHIND_BATCH, log });
  }

  /**
   * `written` is awaited before each batch and must say true, else the batch waits for the next try: a $0 entry
   * never reaches the database before the binding of its requestId (see the file comment).
   */
  writeAfter(written: () => Promise<boolean>): void {
    this.before.push(written);
  }

  /** Records a free reply under its charge key; written with the next batch. */
  record(sessionId: string, key: string, note: string | null): void {
    this.queue.add(key, { k: key, s: sessionId, n: note });
    if (this.queue.size > MAX_QUEUED) {
      const oldest = this.queue.dropOldest();
      this.log(`free replies: dropped the $0 entry '${oldest}' (over ${MAX_QUEUED} queued; is the database down?)`);
    }
  }

  /** Whether a reply of this session waits to be written (or is being written). */
  pendingFor(sessionId: string): boolean {
    for (const e of this.queue.values()) if (e.s === sessionId) return true;
    return false;
  }

  /** Writes one batch of what is queued now (after a write under way); failures are logged and the entries kept. */
  async flush(): Promise<void> {
    await this.queue.flush();
  }

  private async write(batch: Entry[]): Promise<void> {
    for (const written of this.before) if (!(await written())) throw new Error('the requestId bindings of these replies are not written yet');
    await this.db.query(WRITE_SQL, [jsonParam(batch)]);
  }

  /** Writes queued entries until none queued before the call is left (or a write fails), when this session has one. */
  async flushFor(sessionId: string): Promise<void> {
    if (this.pendingFor(sessionId)) await this.queue.drain();
  }

  /** Writes what is left; later records are written by a last flush only. */
  close(): Promise<void> {
    return this.queue.close();
  }
}
