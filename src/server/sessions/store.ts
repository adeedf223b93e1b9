/**
 * Anonymous sessions. The browser holds an opaque random token in the HttpOnly cookie `parley_session`; the
 * database keeps only its SHA-256, so a leaked database does not leak usable cookies. `id` (public, used by the
 * admin command) and `sessionUUID` are separate from the token and safe to show.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SessionData } from '../../protocol/api';
import type { Queryable } from '../db/types';
import { formatNanoRaw, formatUsdMicro } from '../money';

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

export async function findSessionByToken(db: Queryable, token: string): Promise<SessionRecord | null> {
  if (!isWellFormedToken(token)) return null;
  const hash = hashToken(token);
  const rows = await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE token_hash = $1`, [hash]);
  if (rows[0]) return fromRow(rows[0]);
  // A browser that entered the session's recovery code has a token of its own (sessions/recovery.ts).
  const more = await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = (SELECT session_id FROM session_tokens WHERE token_hash = $1)`, [hash]);
  return more[0] ? fromRow(more[0]) : null;
}

/** Only the id, for the auth check on every /api call (cheap, cacheable). */
export async function findSessionIdByToken(db: Queryable, token: string): Promise<string | null> {
  if (!isWellFormedToken(token)) return null;
  const hash = hashToken(token);
  const rows = await db.query<{ id: string }>('SELECT id FROM sessions WHERE token_hash = $1', [hash]);
  if (rows[0]) return rows[0].id;
  const more = await db.query<{ id: string }>('SELECT session_id AS id FROM session_tokens WHERE token_hash = $1', [hash]);
  return more[0]?.id ?? null;
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
