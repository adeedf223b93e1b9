/**
 * Anonymous sessions. The browser holds an opaque random token in the HttpOnly cookie `parley_session`; the
 * database keeps only its SHA-256, so a leaked database does not leak usable cookies. `id` (public, used by the
 * admin command) and `sessionUUID` are separate from the token and safe to show.
 *
 * A session's tokens: the first browser's in `sessions.token_hash`, each browser that entered the recovery code
 * its own in `session_tokens`. Signing the other browsers out (signOutOtherBrowsers) leaves the calling browser's
 * token as the only valid one and marks the others `revoked_at`, so their browsers are told they were signed out.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SessionData } from '../../protocol/api';
import type { Db, Queryable } from '../db/types';
import { formatNanoRaw, formatUsdMicro } from '../money/amounts';

export const SESSION_COOKIE = 'parley_session';

export interface SessionRecord {
  id: string;
  sessionUUID: string;
  usdMicro: bigint;
  nanoRaw: bigint;
  usdEarnedMicro: bigint;
  earnedRaw: bigint;
  numReplies: number;
  metadata: Record<string, string>;
  activePolicies: string[];
  nanoDepositAddress: string | null;
  nanoReturnAddress: string | null;
  referrer: string | null;
  recharge: { enabled: boolean; thresholdMicro: bigint; amountMicro: bigint; pending: { amount: string; paymentLink: string } | null };
  displayCurrency: 'USD' | 'XNO';
}

const COLUMNS = `id, session_uuid::text AS session_uuid, usd_micro::text AS usd_micro, nano_raw::text AS nano_raw,
  usd_earned_micro::text AS usd_earned_micro, earned_raw::text AS earned_raw, num_replies, metadata, active_policies,
  nano_deposit_address, nano_return_address, referrer, recharge_enabled,
  recharge_threshold_micro::text AS recharge_threshold_micro, recharge_amount_micro::text AS recharge_amount_micro,
  display_currency,
  CASE WHEN recharge_enabled THEN (SELECT json_build_object('amount', p.amount, 'link', p.payment_link)::text FROM payment_transactions p
    WHERE p.session_id = sessions.id AND p.purpose = 'recharge' AND p.status = 'pending' AND p.payment_link <> '' AND p.expires_at > now()
    ORDER BY p.created_at DESC LIMIT 1) END AS recharge_pending`;

interface SessionRow {
  [k: string]: unknown;
  id: string;
  session_uuid: string;
  usd_micro: string;
  nano_raw: string;
  usd_earned_micro: string;
  earned_raw: string;
  num_replies: number | string;
  metadata: unknown;
  active_policies: unknown;
  nano_deposit_address: string | null;
  nano_return_address: string | null;
  referrer: string | null;
  recharge_enabled: boolean;
  recharge_threshold_micro: string;
  recharge_amount_micro: string;
  display_currency: string;
  /** The latest auto-recharge top-up waiting for its checkout: {amount, link} as JSON text, or null. */
  recharge_pending: string | null;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return null;
  }
}

function stringRecord(v: unknown): Record<string, string> {
  const o = parseJson(v);
  const out: Record<string, string> = {};
  if (o && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, val] of Object.entries(o)) if (typeof val === 'string') out[k] = val;
  }
  return out;
}

function stringList(v: unknown): string[] {
  const o = parseJson(v);
  return Array.isArray(o) ? o.filter((x): x is string => typeof x === 'string') : [];
}

function pendingTopUp(v: string | null): { amount: string; paymentLink: string } | null {
  const o = parseJson(v);
  if (!o || typeof o !== 'object') return null;
  const { amount, link } = o as { amount?: unknown; link?: unknown };
  return typeof amount === 'string' && typeof link === 'string' ? { amount, paymentLink: link } : null;
}

function fromRow(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    sessionUUID: r.session_uuid,
    usdMicro: BigInt(r.usd_micro),
    nanoRaw: BigInt(r.nano_raw),
    usdEarnedMicro: BigInt(r.usd_earned_micro),
    earnedRaw: BigInt(r.earned_raw),
    numReplies: Number(r.num_replies),
    metadata: stringRecord(r.metadata),
    activePolicies: stringList(r.active_policies),
    nanoDepositAddress: r.nano_deposit_address,
    nanoReturnAddress: r.nano_return_address,
    referrer: r.referrer,
    recharge: {
      enabled: r.recharge_enabled === true,
      thresholdMicro: BigInt(r.recharge_threshold_micro),
      amountMicro: BigInt(r.recharge_amount_micro),
      pending: pendingTopUp(r.recharge_pending),
    },
    displayCurrency: r.display_currency === 'XNO' ? 'XNO' : 'USD',
  };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Cookie tokens are 32 random bytes, base64url (43 characters). Anything else is not looked up. */
export function isWellFormedToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

export async function createSession(db: Queryable): Promise<{ token: string; session: SessionRecord }> {
  const token = randomBytes(32).toString('base64url');
  const id = `ses_${randomBytes(12).toString('base64url')}`;
  const rows = await db.query<SessionRow>(
    `INSERT INTO sessions (id, session_uuid, token_hash) VALUES ($1, $2::uuid, $3) RETURNING ${COLUMNS}`,
    [id, randomUUID(), hashToken(token)],
  );
  const row = rows[0];
  if (!row) throw new Error('Session insert returned no row');
  return { token, session: fromRow(row) };
}

/** What a cookie token opens: its session, a session it was signed out of, or nothing (unknown, expired). */
export type TokenLookup = { sessionId: string; signedOut: boolean } | null;

/** One indexed statement, for the auth check of /api calls. */
export async function lookupToken(db: Queryable, token: string): Promise<TokenLookup> {
  if (!isWellFormedToken(token)) return null;
  const rows = await db.query<{ session_id: string; signed_out: boolean }>(
    `SELECT id AS session_id, false AS signed_out FROM sessions WHERE token_hash = $1
     UNION ALL
     SELECT session_id, revoked_at IS NOT NULL FROM session_tokens WHERE token_hash = $1`,
    [hashToken(token)],
  );
  const row = rows[0];
  return row ? { sessionId: row.session_id, signedOut: row.signed_out === true } : null;
}

/** `findSessionByToken`'s answer for a token that was signed out of its session. */
export const TOKEN_SIGNED_OUT = 'signed-out';

export async function findSessionByToken(db: Queryable, token: string): Promise<SessionRecord | typeof TOKEN_SIGNED_OUT | null> {
  if (!isWellFormedToken(token)) return null;
  // The first browser's token: one statement, as most browsers are.
  const rows = await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE token_hash = $1`, [hashToken(token)]);
  if (rows[0]) return fromRow(rows[0]);
  const found = await lookupToken(db, token);
  if (found === null) return null;
  if (found.signedOut) return TOKEN_SIGNED_OUT;
  return findSession(db, found.sessionId);
}

/**
 * Signs every other browser out of the session, in one transaction holding the session row: the calling browser's
 * token (`currentToken`) becomes the only valid one (the first browser's column, `sessions.token_hash`, takes it,
 * and the token that was there is kept as signed out); every other token is marked signed out. With
 * `recoveryCodeHash`, the recovery code is replaced in the same transaction.
 *
 * Races: a browser entering the old code locks the same row (sessions/recovery.ts), so it either gets its token
 * before this (and is signed out by it) or finds the code gone. Two browsers signing each other out: the second
 * finds its own token signed out and is refused ('signed-out'), so one browser always stays signed in.
 */
export async function signOutOtherBrowsers(
  db: Db,
  sessionId: string,
  currentToken: string,
  opts: { recoveryCodeHash?: string } = {},
): Promise<'done' | typeof TOKEN_SIGNED_OUT> {
  if (!isWellFormedToken(currentToken)) return TOKEN_SIGNED_OUT;
  const current = hashToken(currentToken);
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE id = $1 FOR UPDATE', [sessionId]);
    const primary = rows[0]?.token_hash;
    if (primary === undefined) return TOKEN_SIGNED_OUT;
    if (primary !== current) {
      const mine = await tx.query('DELETE FROM session_tokens WHERE token_hash = $1 AND session_id = $2 AND revoked_at IS NULL RETURNING 1', [current, sessionId]);
      if (mine.length === 0) return TOKEN_SIGNED_OUT;
      await tx.query('INSERT INTO session_tokens (token_hash, session_id, revoked_at) VALUES ($1, $2, now())', [primary, sessionId]);
      await tx.query('UPDATE sessions SET token_hash = $2 WHERE id = $1', [sessionId, current]);
    }
    await tx.query('UPDATE session_tokens SET revoked_at = now() WHERE session_id = $1 AND revoked_at IS NULL', [sessionId]);
    if (opts.recoveryCodeHash !== undefined) await tx.query('UPDATE sessions SET recovery_code_hash = $2 WHERE id = $1', [sessionId, opts.recoveryCodeHash]);
    return 'done';
  });
}

/** By public id or by sessionUUID (the admin command accepts either). */
export async function findSession(db: Queryable, idOrUuid: string): Promise<SessionRecord | null> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrUuid);
  const rows = isUuid
    ? await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE session_uuid = $1::uuid`, [idOrUuid])
    : await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1`, [idOrUuid]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Writes last_seen_at now; false when the session no longer exists (expired, sessions/expiry.ts). */
export async function touchSession(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>('UPDATE sessions SET last_seen_at = now() WHERE id = $1 RETURNING id', [id]);
  return rows.length > 0;
}

/** The wire shape of spec 001 section 3 (src/protocol/api.ts): amounts as decimal strings floored to 6 decimals. */
export function toSessionData(s: SessionRecord): SessionData {
  return {
    id: s.id,
    sessionUUID: s.sessionUUID,
    nanoDepositAddress: s.nanoDepositAddress,
    nanoReturnAddress: s.nanoReturnAddress,
    earned: formatNanoRaw(s.earnedRaw),
    usd_earned: formatUsdMicro(s.usdEarnedMicro),
    usd_balance: formatUsdMicro(s.usdMicro),
    nano_balance: formatNanoRaw(s.nanoRaw),
    metadata: s.metadata,
    recharge_settings: {
      enabled: s.recharge.enabled,
      threshold: formatUsdMicro(s.recharge.thresholdMicro),
      amount: formatUsdMicro(s.recharge.amountMicro),
      ...(s.recharge.pending ? { pending: s.recharge.pending } : {}),
    },
    numReplies: s.numReplies,
    activePolicies: s.activePolicies,
    referrer: s.referrer,
    currency: s.usdMicro > 0n ? 'USD' : 'XNO',
    displayCurrency: s.displayCurrency,
  };
}
