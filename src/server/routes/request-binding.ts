/**
 * A requestId is bound to one request: (session, model, hash of the canonical request body), recorded in
 * `request_bindings` whose primary key (session_id, request_id) makes the first use win however many arrive at
 * once (docs/gateway.md, "Request ids"). The reply's charge and hold are keyed by the requestId, so without the
 * binding a requestId first used on a free model (charged $0) would answer every later paid reply with that $0.
 *
 *  - a new requestId: one INSERT ... ON CONFLICT DO NOTHING (one statement on the hot path);
 *  - the same request again (a true retry): 'same', and the caller replays the reply instead of starting another;
 *  - another model or another body: 'other', answered 409.
 *
 * A request that never reached the upstream (402, upstream refusal) unbinds, so the same requestId can be retried.
 */
import { createHash } from 'node:crypto';
import type { StreamGptRequest } from '../../protocol/api';
import type { Queryable } from '../db/types';

export type BindResult =
  | { kind: 'new' }
  | { kind: 'same'; ageMs: number }
  | { kind: 'other'; differs: 'model' | 'body' };

/** JSON with object keys sorted at every level: the same request always gives the same text. */
function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** SHA-256 (hex) of the validated request without its requestId. */
export function requestBodyHash(req: StreamGptRequest): string {
  const { requestId: _omit, ...rest } = req;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

export async function bindRequest(
  q: Queryable,
  sessionId: string,
  requestId: string,
  model: string,
  bodyHash: string,
  attempt = 0,
): Promise<BindResult> {
  const inserted = await q.query<{ n: number }>(
    `INSERT INTO request_bindings (session_id, request_id, model, body_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id, request_id) DO NOTHING RETURNING 1 AS n`,
    [sessionId, requestId, model, bodyHash],
  );
  if (inserted.length > 0) return { kind: 'new' };
  const rows = await q.query<{ model: string; body_hash: string; age_ms: string }>(
    `SELECT model, body_hash, (extract(epoch FROM (now() - created_at)) * 1000)::bigint::text AS age_ms
     FROM request_bindings WHERE session_id = $1 AND request_id = $2`,
    [sessionId, requestId],
  );
  const row = rows[0];
  // Unbound in between (the first use failed before its upstream): bind again.
  if (!row) {
    if (attempt >= 3) throw new Error(`requestId '${requestId}' keeps being bound and freed`);
    return bindRequest(q, sessionId, requestId, model, bodyHash, attempt + 1);
  }
  if (row.model !== model) return { kind: 'other', differs: 'model' };
  if (row.body_hash !== bodyHash) return { kind: 'other', differs: 'body' };
  return { kind: 'same', ageMs: Number(row.age_ms) };
}

/** Frees a requestId whose request never reached the upstream, so that it can be sent again. */
export async function unbindRequest(q: Queryable, sessionId: string, requestId: string): Promise<void> {
  await q.query('DELETE FROM request_bindings WHERE session_id = $1 AND request_id = $2', [sessionId, requestId]);
}
