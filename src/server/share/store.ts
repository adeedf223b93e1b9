/**
 * The shared conversations table (migration 15): a repro log kept under a random id, with the hash of its owner
 * token. Plain SQL through the db layer, so the embedded PGlite and PostgreSQL run the same statements.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db, Queryable } from '../db/types';

export const newShareId = (): string => randomBytes(16).toString('base64url');
export const newOwnerToken = (): string => randomBytes(32).toString('base64url');
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export type CreateOutcome = { ok: true } | { ok: false; reason: 'too-many' };

/**
 * Stores a share unless the session already keeps `maxPerSession`. The session's row is locked first (SELECT ...
 * FOR UPDATE), so parallel publishes of one session, through one process or several on PostgreSQL, count and insert
 * one at a time: the cap is exact. A session that is gone gets 'too-many' (the route only runs for live sessions).
 */
export async function createShare(db: Db, s: { id: string; sessionId: string; ownerToken: string; body: string; bytes: number; maxPerSession: number }): Promise<CreateOutcome> {
  return db.transaction(async (tx) => {
    const session = await tx.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [s.sessionId]);
    if (session.length === 0) return { ok: false, reason: 'too-many' };
    const rows = await tx.query<{ id: string }>(
      `INSERT INTO shared_conversations (id, session_id, owner_token_hash, body, bytes)
       SELECT $1, $2, $3, $4, $5::int
       WHERE (SELECT count(*) FROM shared_conversations WHERE session_id = $2) < $6::int
       RETURNING id`,
      [s.id, s.sessionId, hashToken(s.ownerToken), s.body, s.bytes, s.maxPerSession],
    );
    return rows.length === 1 ? { ok: true } : { ok: false, reason: 'too-many' };
  });
}

export async function shareExists(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM shared_conversations WHERE id = $1', [id]);
  return rows.length > 0;
}

export async function readShare(db: Queryable, id: string): Promise<string | null> {
  const rows = await db.query<{ body: string }>('SELECT body FROM shared_conversations WHERE id = $1', [id]);
  return rows[0]?.body ?? null;
}

/** Deletes the share when the token is its owner's: 'deleted', 'forbidden' (another token) or 'missing'. */
export async function deleteShare(db: Queryable, id: string, ownerToken: string): Promise<'deleted' | 'forbidden' | 'missing'> {
  const rows = await db.query<{ owner_token_hash: string }>('SELECT owner_token_hash FROM shared_conversations WHERE id = $1', [id]);
  const row = rows[0];
  if (!row) return 'missing';
  const given = Buffer.from(hashToken(ownerToken), 'hex');
  const kept = Buffer.from(row.owner_token_hash, 'hex');
  if (given.length !== kept.length || !timingSafeEqual(given, kept)) return 'forbidden';
  // Conditional on the hash, so a token that was right cannot delete a share made again under the same id.
  const gone = await db.query('DELETE FROM shared_conversations WHERE id = $1 AND owner_token_hash = $2 RETURNING id', [id, row.owner_token_hash]);
  return gone.length > 0 ? 'deleted' : 'missing';
}
