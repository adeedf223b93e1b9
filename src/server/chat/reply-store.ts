/**
 * Replies in flight, shared by every gateway process on one Postgres (migration 3, docs/gateway.md "Several
 * gateway processes"). The process that runs a reply's upstream (its owner) keeps it in memory as before
 * (./reply-registry.ts) and also writes it here, so that a resume, a true retry or a Stop that a load balancer
 * sends to another process reaches it:
 *
 *  - `inflight_replies`: one row per reply (key, owner, state, cancel flag, until when a remote follower is
 *    reading, expiry); `inflight_reply_chunks`: its text in order, the metadata tag last.
 *  - Writes are batched: every FLUSH_MS the owner writes what its replies produced since, all replies in one
 *    transaction (rows, then chunks), never one INSERT per token nor a transaction per reply.
 *    A reply's last chunk and its 'finished' state go in the same transaction.
 *  - Another process follows a reply by polling (FOLLOW_POLL_MS): it reads the state, then the chunks after the
 *    last it sent; 'finished' read before the chunks means it has them all. Each poll also marks the row followed,
 *    which keeps the owner from ending the reply when its own grace period runs out.
 *  - Stop through another process sets `cancel_requested`; owners look for their cancelled replies every
 *    CANCEL_POLL_MS and abandon the upstream.
 *  - Owners renew the expiry of their streaming rows; finished rows expire after the retention time. A sweep on
 *    every process deletes expired rows (chunks cascade), claiming them with FOR UPDATE SKIP LOCKED so that
 *    processes never wait on each other. A process that dies leaves rows that expire with their lease.
 *
 * Used on Postgres only: with embedded PGlite one process owns the database folder, so the memory registry is
 * already all there is, and the table would only add work on the event loop.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/types';
import type { InFlightReply, SharedReplies } from './reply-registry';
import type { ReplySink } from './reply-sink';
import { jsonParam } from '../db/json-param';

export const FLUSH_MS = 150;
export const CANCEL_POLL_MS = 500;
export const FOLLOW_POLL_MS = 100;
/** How long a streaming row lives without its owner renewing it (an owner renews every LEASE_MS / 3). */
export const LEASE_MS = 30_000;
/** A remote follower counts as present this long after its last poll. */
const FOLLOWER_FRESH_S = 3;
const SWEEP_MS = 10_000;
const SWEEP_BATCH = 1000;

interface Pending {
  /** Text written since the last flush. */
  text: string;
  /** The row is not in the table yet. */
  isNew: boolean;
  finished: boolean;
  nextSeq: number;
}

export interface ReplyStoreOptions {
  retainMs: number;
  log: (line: string) => void;
  flushMs?: number;
  cancelPollMs?: number;
  followPollMs?: number;
}

export class PgReplyStore implements SharedReplies {
  /** This process, as the owner of the replies it runs. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly pending = new Map<string, Pending>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** Replies this process runs that have not finished (no cancel poll without them). */
  private streamingHere = 0;
  private readonly flushMs: number;
  private readonly followPollMs: number;

  constructor(
    private readonly db: Db,
    private readonly options: ReplyStoreOptions,
  ) {
    this.flushMs = options.flushMs ?? FLUSH_MS;
    this.followPollMs = options.followPollMs ?? FOLLOW_POLL_MS;
  }

  /** Starts the flush, cancel, lease and sweep timers; `abandon` stops the upstream of a reply this process runs. */
  start(abandon: (key: string) => void): void {
    const every = (ms: number, fn: () => Promise<void>, what: string): void => {
      let running = false;
      const t = setInterval(() => {
        if (running || this.closed) return;
        running = true;
        fn()
          .catch((e: unknown) => this.options.log(`reply store: ${what} failed: ${e instanceof Error ? e.message : String(e)}`))
          .finally(() => (running = false));
      }, ms);
      t.unref?.();
      this.timers.push(t);
    };
    every(this.flushMs, () => this.flush(), 'flush');
    every(this.options.cancelPollMs ?? CANCEL_POLL_MS, async () => {
      if (this.streamingHere === 0) return;
      const rows = await this.db.query<{ reply_key: string }>(
        `SELECT reply_key FROM inflight_replies WHERE owner = $1 AND state = 'streaming' AND cancel_requested`,
        [this.owner],
      );
      for (const r of rows) abandon(r.reply_key);
    }, 'cancel poll');
    every(LEASE_MS / 3, async () => {
      await this.db.query(
        `UPDATE inflight_replies SET expires_at = now() + make_interval(secs => $2) WHERE owner = $1 AND state = 'streaming'`,
        [this.owner, LEASE_MS / 1000],
      );
    }, 'lease renewal');
    every(SWEEP_MS, () => this.sweep().then(() => {}), 'sweep');
  }

  opened(key: string, _reply: InFlightReply): void {
    const old = this.pending.get(key);
    if (old === undefined || old.finished) this.streamingHere++;
    this.pending.set(key, { text: '', isNew: true, finished: false, nextSeq: 0 });
  }

  appended(key: string, text: string): void {
    const p = this.pending.get(key);
    if (p) p.text += text;
  }

  finished(key: string): void {
    const p = this.pending.get(key);
    if (!p || p.finished) return;
    p.finished = true;
    this.streamingHere--;
    // Written with the next batch like any text (not a transaction per finished reply): a follower elsewhere
    // gets the metadata at most one flush and one poll later.
  }

  /** Writes what the replies produced since the last flush: one transaction of two or three statements. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (this.pending.size === 0) return Promise.resolve();
    const rows: { reply_key: string; state: string }[] = [];
    const fresh: { reply_key: string }[] = [];
    const chunks: { reply_key: string; seq: number; body: string }[] = [];
    const taken: [string, Pending, string][] = [];
    for (const [key, p] of this.pending) {
      if (p.text.length === 0 && !p.isNew && !p.finished) continue;
      if (p.isNew || p.finished) rows.push({ reply_key: key, state: p.finished ? 'finished' : 'streaming' });
      if (p.isNew) fresh.push({ reply_key: key });
      if (p.text.length > 0) chunks.push({ reply_key: key, seq: p.nextSeq, body: p.text });
      taken.push([key, p, p.text]);
    }
    if (taken.length === 0) return Promise.resolve();
    // Take the batch now: what is written during the transaction goes to the next one.
    for (const [key, p, text] of taken) {
      if (text.length > 0) p.nextSeq++;
      p.text = '';
      if (p.finished) this.pending.delete(key);
    }
    const run = this.db
      .transaction(async (tx) => {
        if (rows.length > 0) {
          await tx.query(
            `INSERT INTO inflight_replies (reply_key, owner, state, expires_at)
             SELECT x.reply_key, $2, x.state,
                    now() + make_interval(secs => CASE WHEN x.state = 'finished' THEN $3::double precision ELSE $4::double precision END)
             FROM jsonb_to_recordset($1::text::jsonb) AS x(reply_key text, state text)
             ON CONFLICT (reply_key) DO UPDATE SET state = EXCLUDED.state, owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at`,
            [jsonParam(rows), this.owner, this.options.retainMs / 1000, LEASE_MS / 1000],
          );
        }
        if (fresh.length > 0) {
          // A key used again (a requestId freed and retried) starts from an empty text, never after the old one's.
          await tx.query(
            `DELETE FROM inflight_reply_chunks c USING jsonb_to_recordset($1::text::jsonb) AS x(reply_key text) WHERE c.reply_key = x.reply_key`,
            [jsonParam(fresh)],
          );
        }
        if (chunks.length > 0) {
          await tx.query(
            `INSERT INTO inflight_reply_chunks (reply_key, seq, body)
             SELECT x.reply_key, x.seq, x.body FROM jsonb_to_recordset($1::text::jsonb) AS x(reply_key text, seq integer, body text)`,
            [jsonParam(chunks)],
          );
        }
      })
      .then(
        () => {
          for (const [, p] of taken) p.isNew = false;
        },
        (e: unknown) => {
          // Put the batch back in front of what came since, so that nothing is lost or reordered.
          for (const [key, p, text] of taken) {
            if (text.length > 0) p.nextSeq--;
            p.text = text + p.text;
            if (p.finished && !this.pending.has(key)) this.pending.set(key, p);
          }
          throw e;
        },
      )
      .finally(() => (this.flushing = null));
    this.flushing = run;
    return run;
  }

  async followedElsewhere(key: string): Promise<boolean> {
    const rows = await this.db.query<{ followed: boolean }>(
      `SELECT coalesce(follower_until > now(), false) AS followed FROM inflight_replies WHERE reply_key = $1`,
      [key],
    );
    return rows[0]?.followed === true;
  }

  /**
   * Whether the table knows this reply (in flight on some process, or finished and still kept). A reply that
   * started less than a flush ago is not in the table yet: a miss is asked again until two flushes have passed.
   */
  async exists(key: string): Promise<boolean> {
    return this.retryMiss(async () => (await this.db.query(`SELECT 1 AS n FROM inflight_replies WHERE reply_key = $1`, [key])).length > 0);
  }

  /** Stop through another process: flags the reply for its owner. Resolves to whether the reply is known. */
  async requestCancel(key: string): Promise<boolean> {
    return this.retryMiss(
      async () => (await this.db.query(`UPDATE inflight_replies SET cancel_requested = true WHERE reply_key = $1 RETURNING 1 AS n`, [key])).length > 0,
    );
  }

  private async retryMiss(found: () => Promise<boolean>): Promise<boolean> {
    const until = Date.now() + 2 * this.flushMs + 100;
    for (;;) {
      if (await found()) return true;
      if (Date.now() >= until || this.closed) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Relays a reply another process runs (or ran) into `sink`, from its first byte to its end. `gone()` says the
   * client left. Ends the sink when the reply ends, or when its row is gone (swept after its owner died).
   */
  async follow(key: string, sink: ReplySink, gone: () => boolean): Promise<void> {
    let seq = 0;
    try {
      while (!gone() && !this.closed) {
        const state = await this.db.query<{ state: string }>(
          `UPDATE inflight_replies SET follower_until = now() + make_interval(secs => $2) WHERE reply_key = $1 RETURNING state`,
          [key, FOLLOWER_FRESH_S],
        );
        const row = state[0];
        if (!row) break;
        const chunks = await this.db.query<{ seq: number; body: string }>(
          `SELECT seq, body FROM inflight_reply_chunks WHERE reply_key = $1 AND seq >= $2 ORDER BY seq`,
          [key, seq],
        );
        for (const c of chunks) {
          if (gone()) return;
          await sink.write(c.body);
          seq = Number(c.seq) + 1;
        }
        if (row.state === 'finished') break;
        await new Promise((r) => setTimeout(r, this.followPollMs));
      }
    } finally {
      sink.end();
    }
  }

  /** Deletes expired rows (and their chunks); returns how many. Safe to run on every process at once. */
  async sweep(): Promise<number> {
    const rows = await this.db.query(
      `DELETE FROM inflight_replies WHERE reply_key IN (
         SELECT reply_key FROM inflight_replies WHERE expires_at < now() ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED
       ) RETURNING 1 AS n`,
    );
    return rows.length;
  }

  /** Flushes what is left and stops the timers (the gateway is closing; the database closes after). */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    await this.flush().catch((e: unknown) => this.options.log(`reply store: last flush failed: ${e instanceof Error ? e.message : String(e)}`));
    this.closed = true;
  }
}
