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
 */
import { Batcher } from '../db/batcher';
import type { Queryable } from '../db/types';

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

export class RequestBinder {
  private readonly inserts: Batcher<BindItem, InsertOutcome>;

  constructor(private readonly db: Queryable) {
    this.inserts = new Batcher((items) => this.insertAll(items));
  }

  /**
   * Binds `requestId` of this session to (model, body hash); see the file comment. On the hot path, one row of a
   * multi-row INSERT shared by the requests of the same turn (db/batcher.ts; on PGlite a statement's cost is mostly
   * fixed, and grows fast with joins or subqueries, so this one has none); the binding already there is read only
   * when the insert found it.
   */
  async bind(sessionId: string, requestId: string, model: string, bodyHash: string): Promise<BindResult> {
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
      if (row.model !== model) return { kind: 'other', differs: 'model' };
      if (row.body_hash !== bodyHash) return { kind: 'other', differs: 'body' };
      return { kind: 'same', ageMs: Number(row.age_ms) };
    }
    throw new Error(`requestId '${requestId}' keeps being bound and freed`);
  }

  /** Frees a requestId whose request never reached the upstream, so that it can be sent again. */
  async unbind(sessionId: string, requestId: string): Promise<void> {
    await this.db.query('DELETE FROM request_bindings WHERE session_id = $1 AND request_id = $2', [sessionId, requestId]);
  }

  /**
   * One `INSERT ... VALUES (...), (...) ON CONFLICT DO NOTHING RETURNING` for a batch: a row back = bound now.
   * A key twice in one batch: the later ones are 'taken' (the first binds it). A session that no longer exists
   * fails the whole statement (foreign key): the batch is then bound row by row, so only that request is refused.
   */
  private async insertAll(items: BindItem[]): Promise<InsertOutcome[]> {
    const key = (i: BindItem): string => `${i.sessionId}\n${i.requestId}`;
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
