/**
 * Recovery codes (beyond the spec): a code the user saves, shown once, that brings the same session (its balance,
 * deposit address, invitations) into another browser. The code has 125 random bits, so it cannot be guessed, and
 * is stored only as HMAC-SHA256 keyed with a server secret (PARLEY_RECOVERY_SECRET, else a random key kept in
 * gateway_secrets): a copy of the sessions table alone cannot test codes offline, and the lookup is one indexed
 * equality (a slow salted hash would need the session named in the code). docs/decisions.md says why.
 *
 * Entering the code gives that browser a new cookie token of its own for the session (session_tokens). Making a
 * new code replaces the old one and signs every other browser out of the session (a leaked code is revoked by
 * making a new one: issue 15 item 9); "Sign out other browsers" does the same without a new code
 * (store.ts, signOutOtherBrowsers). Wrong codes are rate-limited per client address.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types';
import { hashToken, signOutOtherBrowsers, TOKEN_SIGNED_OUT } from './store';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newRecoveryCode(): string {
  const bytes = randomBytes(16);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let s = '';
  for (let i = 0; i < 25; i++) {
    s += CROCKFORD[Number(bits & 31n)];
    bits >>= 5n;
  }
  return s.match(/.{5}/g)!.join('-');
}

/** What a person may type: any case, spaces or dashes, O for 0, I and L for 1. Null if it cannot be a code. */
export function normaliseRecoveryCode(input: string): string | null {
  const s = input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (!/^[0-9A-HJKMNP-TV-Z]{25}$/.test(s)) return null;
  return s;
}

/** The database's own key, per database (a process may open several: tests). */
const cachedSecrets = new WeakMap<Queryable, string>();

async function secret(db: Queryable, configured: string | null): Promise<string> {
  if (configured) return configured;
  const cached = cachedSecrets.get(db);
  if (cached) return cached;
  await db.query(`INSERT INTO gateway_secrets (name, value) VALUES ('recovery', $1) ON CONFLICT (name) DO NOTHING`, [randomBytes(32).toString('base64url')]);
  const rows = await db.query<{ value: string }>(`SELECT value FROM gateway_secrets WHERE name = 'recovery'`);
  const v = rows[0]?.value;
  if (!v) throw new Error('recovery secret missing');
  cachedSecrets.set(db, v);
  return v;
}

async function codeHash(db: Queryable, configured: string | null, normalised: string): Promise<string> {
  return createHmac('sha256', await secret(db, configured)).update(normalised).digest('hex');
}

/**
 * Makes a new code for the session, asked by the browser holding `currentToken`: the previous code stops working
 * and every other browser is signed out. Returns the code, to be shown once, or TOKEN_SIGNED_OUT when the asking
 * browser was itself signed out meanwhile.
 */
export async function createRecoveryCode(db: Db, configured: string | null, sessionId: string, currentToken: string): Promise<string | typeof TOKEN_SIGNED_OUT> {
  const code = newRecoveryCode();
  const hash = await codeHash(db, configured, normaliseRecoveryCode(code)!);
  const done = await signOutOtherBrowsers(db, sessionId, currentToken, { recoveryCodeHash: hash });
  return done === 'done' ? code : TOKEN_SIGNED_OUT;
}

export async function hasRecoveryCode(db: Queryable, sessionId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM sessions WHERE id = $1 AND recovery_code_hash IS NOT NULL', [sessionId]);
  return rows.length > 0;
}

/**
 * The session a code opens, with a new cookie token for it; null for a wrong code. The session row is locked
 * while the token is added, as a new code or a sign-out holds it: a code replaced meanwhile opens nothing, and a
 * token added just before a sign-out is signed out by it.
 */
export async function recoverSession(db: Db, configured: string | null, input: string): Promise<{ sessionId: string; token: string } | null> {
  const normalised = normaliseRecoveryCode(input);
  if (normalised === null) return null;
  const hash = await codeHash(db, configured, normalised);
  const token = randomBytes(32).toString('base64url');
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ id: string }>('SELECT id FROM sessions WHERE recovery_code_hash = $1 FOR UPDATE', [hash]);
    const id = rows[0]?.id;
    if (!id) return null;
    await tx.query('INSERT INTO session_tokens (token_hash, session_id) VALUES ($1, $2)', [hashToken(token), id]);
    return { sessionId: id, token };
  });
}
