/**
 * A requestId is bound to one request: (session, model, hash of the canonical request body), recorded in
 * `request_bindings` whose primary key (session_id, request_id) makes the first use win however many arrive at
 * once (docs/gateway.md, "Request ids"). The reply's charge and hold are keyed by the requestId, so without the
 * binding a requestId first used on a free model (charged $0) would answer every later paid reply with that $0.
 *
 *  - a new requestId: 'new';
 *  - the same request again (a true retry): 'same', and the caller replays the reply instead of starting another;
 *  - another model or another body: 'other', answered 409.
 *
 * A request that never reached the upstream (402, upstream refusal) unbinds, so the same requestId can be retried.
 * Other routes bind in their own namespace of request ids (`multi:{requestId}`), so that one requestId used on
 * two routes is two bindings.
 *
 * On PostgreSQL (several gateway processes) every binding is decided by the database before the reply starts. On
 * the embedded database this process is the only writer, so a binding is decided in memory and written behind
 * (LocalBindings below): a key this process bound lately is answered from memory, and a key it never saw is new
 * unless a filter of every key in the table says it may be there, in which case the database decides as on
 * PostgreSQL. A gateway killed outright loses the bindings of its last 100 ms; their replies die with it, and a
 * retry of a paid one still finds its hold (never a second generation under one key). A free reply's $0 entry is
 * never written before its binding (money/free-replies.ts, `writeAfter`).
 */
import { Batcher } from '../db/batcher';
import { KeyFilter } from '../db/key-filter';
import type { Db } from '../db/types';
import { WRITE_BEHIND_BATCH, WRITE_BEHIND_MS, WriteBehind } from '../db/write-behind';
import { jsonParam } from '../db/json-param';

export type BindResult =
  | { kind: 'new' }
  | { kind: 'same'; ageMs: number }
  | { kind: 'other'; differs: 'model' | 'body' }
  /** The session does not exist (deleted since its cookie was checked). */
  | { kind: 'no-session' };

export { requestBodyHash } from './chat-digest';

/** A foreign-key violation (SQLSTATE 23503): the session row is gone. */
function isForeignKeyViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23503';
}

interface BindItem {
  sessionId: string;
  requestId: string;
  model: string;
  bodyHash: string;
}

type InsertOutcome = 'inserted' | 'taken' | 'no-session';

interface LocalBinding extends BindItem {
  /** Date.now() when it was bound. */
  at: number;
}

const bindingKey = (sessionId: string, requestId: string): string => `${sessionId}\n${requestId}`;

/** Past this many bindings waiting to be written (the database is failing), new ones are decided by the database. */
const MAX_QUEUED = 10_000;
/** Rows per statement when the filter is filled at start. */
const LOAD_PAGE = 5_000;

/** Written behind; a session deleted meanwhile (expiry) loses its rows (the JOIN). */
const WRITE_SQL = `INSERT INTO request_bindings (session_id, request_id, model, body_hash, created_at)
  SELECT x.s, x.r, x.m, x.h, to_timestamp(x.t / 1000.0)
  FROM jsonb_to_recordset($1::text::jsonb) AS x(s text, r text, m text, h text, t float8)
  JOIN sessions ON sessions.id = x.s
  ON CONFLICT (session_id, request_id) DO NOTHING`;

/**
 * The bindings of a database only this process writes (embedded PGlite), one set per database handle, so that
 * every app built on one handle sees the same bindings: those decided lately (in memory until written) and a filter
 * of every key in the table (filled from the table at start, then by every bind). Until the filter is filled, the
 * database decides every binding.
 */
class LocalBindings {
  readonly filter = new KeyFilter();
  readonly queue: WriteBehind<LocalBinding>;
  /** Every key of the table is in the filter. */
  ready = false;
  /** Resolves once the filter is filled (or could not be). */
  readonly loaded: Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly log: (line: string) => void,
  ) {
    this.queue = new WriteBehind(
      (batch) => this.db.query(WRITE_SQL, [jsonParam(batch.map((b) => ({ s: b.sessionId, r: b.requestId, m: b.model, h: b.bodyHash, t: b.at })))]).then(() => {}),
      { name: 'request bindings', what: 'bindings', flushMs: WRITE_BEHIND_MS, maxBatch: WRITE_BEHIND_BATCH, log },
    );
    this.loaded = this.load();
  }

  /** Puts every key of the table in the filter, a page at a time, the event loop running between pages. */
  private async load(): Promise<void> {
    let after: [string, string] | null = null;
    try {
      for (;;) {
        const rows: { s: string; r: string }[] = await this.db.query<{ s: string; r: string }>(
          `SELECT session_id AS s, request_id AS r FROM request_bindings ${after === null ? '' : 'WHERE (session_id, request_id) > ($1, $2)'}
           ORDER BY session_id, request_id LIMIT ${LOAD_PAGE}`,
          after ?? [],
        );
        for (const r of rows) this.filter.add(bindingKey(r.s, r.r));
        const last = rows[rows.length - 1];
        if (rows.length < LOAD_PAGE || last === undefined) break;
        after = [last.s, last.r];
        await new Promise<void>((r) => setImmediate(r));
      }
      this.ready = true;
    } catch (e) {
      this.log(`request bindings: could not read the table's keys, so the database decides every binding: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

const localBindings = new WeakMap<Db, LocalBindings>();

export class RequestBinder {
  private readonly inserts: Batcher<BindItem, InsertOutcome>;
  /** Embedded database: bindings decided in memory (see the file comment); null on PostgreSQL. */
  private readonly local: LocalBindings | null;

  constructor(
    private readonly db: Db,
    log: (line: string) => void = () => {},
  ) {
    this.inserts = new Batcher((items) => this.insertAll(items));
    let local = db.kind === 'pglite' ? localBindings.get(db) : undefined;
    if (db.kind === 'pglite' && local === undefined) {
      local = new LocalBindings(db, log);
      localBindings.set(db, local);
    }
    this.local = local ?? null;
  }

  /** Resolves true once bindings are decided in memory (embedded database, its keys read), else false. */
  async inMemory(): Promise<boolean> {
    if (this.local === null) return false;
    await this.local.loaded;
    return this.local.ready;
  }

  /** Whether every binding decided so far is in the database (on PostgreSQL always); writes what waits. */
  written(): Promise<boolean> {
    return this.local === null ? Promise.resolve(true) : this.local.queue.drain();
  }

  /**
   * Binds `requestId` of this session to (model, body hash); see the file comment. On the hot path, one row of a
   * multi-row INSERT shared by the requests of the same turn (db/batcher.ts; on PGlite a statement's cost is mostly
   * fixed, and grows fast with joins or subqueries, so this one has none); the binding already there is read only
   * when the insert found it.
   */
  async bind(sessionId: string, requestId: string, model: string, bodyHash: string): Promise<BindResult> {
    const local = this.local;
    if (local !== null) {
      const k = bindingKey(sessionId, requestId);
      const known = local.queue.get(k);
      if (known !== undefined) return compare(known, model, bodyHash, Date.now() - known.at);
      const free = local.ready && !local.filter.mayHave(k);
      // Before the database is asked: a bind of this key meanwhile goes to the database too, and waits behind this one.
      local.filter.add(k);
      if (free && local.queue.size < MAX_QUEUED) {
        local.queue.add(k, { sessionId, requestId, model, bodyHash, at: Date.now() });
        return { kind: 'new' };
      }
    }
    for (let attempt = 0; attempt <= 3; attempt++) {
      const outcome = await this.inserts.add({ sessionId, requestId, model, bodyHash });
      if (outcome === 'inserted') return { kind: 'new' };
      if (outcome === 'no-session') return { kind: 'no-session' };
      const rows = await this.db.query<{ model: string; body_hash: string; age_ms: string }>(
        `SELECT model, body_hash, (extract(epoch FROM (now() - created_at)) * 1000)::bigint::text AS age_ms
         FROM request_bindings WHERE session_id = $1 AND request_id = $2`,
        [sessionId, requestId],
      );
      const row = rows[0];
      // Unbound in between (the first use failed before its upstream): bind again.
      if (!row) continue;
      return compare({ model: row.model, bodyHash: row.body_hash }, model, bodyHash, Number(row.age_ms));
    }
    throw new Error(`requestId '${requestId}' keeps being bound and freed`);
  }

  /** Frees a requestId whose request never reached the upstream, so that it can be sent again. */
  async unbind(sessionId: string, requestId: string): Promise<void> {
    // Not written yet: no longer written (one being written is waited for, so that the delete comes after it).
    await this.local?.queue.delete(bindingKey(sessionId, requestId));
    await this.db.query('DELETE FROM request_bindings WHERE session_id = $1 AND request_id = $2', [sessionId, requestId]);
  }

  /**
   * One `INSERT ... VALUES (...), (...) ON CONFLICT DO NOTHING RETURNING` for a batch: a row back = bound now.
   * A key twice in one batch: the later ones are 'taken' (the first binds it). A session that no longer exists
   * fails the whole statement (foreign key): the batch is then bound row by row, so only that request is refused.
   */
  private async insertAll(items: BindItem[]): Promise<InsertOutcome[]> {
    const key = (i: BindItem): string => bindingKey(i.sessionId, i.requestId);
    const params: string[] = [];
    const rows: string[] = [];
    for (const it of items) {
      const n = params.length;
      rows.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4})`);
      params.push(it.sessionId, it.requestId, it.model, it.bodyHash);
    }
    let inserted: { session_id: string; request_id: string }[];
    try {
      inserted = await this.db.query<{ session_id: string; request_id: string }>(
        `INSERT INTO request_bindings (session_id, request_id, model, body_hash) VALUES ${rows.join(', ')}
         ON CONFLICT (session_id, request_id) DO NOTHING RETURNING session_id, request_id`,
        params,
      );
    } catch (e) {
      if (!isForeignKeyViolation(e)) throw e;
      if (items.length === 1) return ['no-session'];
      const out: InsertOutcome[] = [];
      for (const it of items) out.push(...(await this.insertAll([it])));
      return out;
    }
    const fresh = new Set(inserted.map((r) => `${r.session_id}\n${r.request_id}`));
    return items.map((it) => {
      const k = key(it);
      if (!fresh.has(k)) return 'taken';
      fresh.delete(k); // a second item with the same key in this batch did not bind it
      return 'inserted';
    });
  }
}

/** A binding already there, against the request that asks for it again. */
function compare(bound: { model: string; bodyHash: string }, model: string, bodyHash: string, ageMs: number): BindResult {
  if (bound.model !== model) return { kind: 'other', differs: 'model' };
  if (bound.bodyHash !== bodyHash) return { kind: 'other', differs: 'body' };
  return { kind: 'same', ageMs };
}
