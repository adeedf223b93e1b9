/**
 * Invitations (spec 001 sections 3, 7 and 8): a gift of money with a redeem code. Creating one reserves its amount
 * from the creator's balance (a ledger charge 'invite:{code}:reserve' in the same transaction as the row), so the
 * money cannot be spent twice; redeeming credits it to the redeemer ('invite:{code}:redeem'); deleting, or the
 * expiry sweep, refunds it to the creator ('invite:{code}:refund'). A redeemed invitation cannot change.
 *
 * Exactly one redemption: the redeem is one conditional UPDATE (status 'active' -> 'redeemed'); whoever's update
 * takes the row credits, everyone else finds it redeemed. Lock order: invitation row, then session row.
 * 'blocked' is never set by this gateway (docs/decisions.md); it is read like 'expired' if an operator sets it.
 */
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types';
import { creditInTx, debitInTx, type Amounts } from '../money/transfers';
import { AmountError, formatNanoRaw, formatUsdMicro, parseDecimal } from '../money/amounts';
import { INVITATION_MAX_LIFETIME_MS, type Invitation, type InvitationErrorCode, type InvitationStatus } from '../../protocol/payments';

export class InvitationError extends Error {
  override name = 'InvitationError';
  constructor(
    readonly code: InvitationErrorCode,
    readonly status: 400 | 402 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** Most one invitation may carry: $2000, or 1,000,000 XNO. */
const MAX_USD_MICRO = 2_000_000_000n;
const MAX_NANO_RAW = 10n ** 36n;
const RAW_PER_MICRO_XNO = 10n ** 24n;
/** An invitation must live at least a minute. */
const MIN_LIFETIME_MS = 60_000;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** 16 characters from a 32-letter alphabet without look-alikes: 80 random bits. */
export function newRedeemCode(): string {
  const bytes = randomBytes(16);
  let s = '';
  for (const b of bytes) s += CODE_ALPHABET[b & 31];
  return s;
}

export function parseInvitationAmount(v: unknown, currency: 'USD' | 'XNO'): Amounts {
  const text = typeof v === 'string' ? v.trim() : '';
  if (!/^\d{1,10}(\.\d{1,6})?$/.test(text)) throw new InvitationError('InvalidAmount', 400, 'The amount must be a decimal string above 0 with at most 6 decimals');
  let units: bigint;
  try {
    units = parseDecimal(text, 6);
  } catch (e) {
    if (e instanceof AmountError) throw new InvitationError('InvalidAmount', 400, e.message);
    throw e;
  }
  if (units <= 0n) throw new InvitationError('InvalidAmount', 400, 'The amount must be above 0');
  const amounts: Amounts = currency === 'USD' ? { usdMicro: units, nanoRaw: 0n } : { usdMicro: 0n, nanoRaw: units * RAW_PER_MICRO_XNO };
  if (amounts.usdMicro > MAX_USD_MICRO || amounts.nanoRaw > MAX_NANO_RAW) throw new InvitationError('InvalidAmount', 400, 'The amount is above the largest invitation');
  return amounts;
}

export function parseExpiresAt(v: unknown, now: number): number {
  const ms = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : typeof v === 'string' ? Date.parse(v) : NaN;
  if (!Number.isSafeInteger(ms) || ms < now + MIN_LIFETIME_MS || ms > now + INVITATION_MAX_LIFETIME_MS) {
    throw new InvitationError('InvalidExpiresAt', 400, 'The expiry must be between a minute and a year from now');
  }
  return ms;
}

interface Row {
  [k: string]: unknown;
  redeem_code: string;
  creator_session_id: string;
  currency: string;
  amount_usd_micro: string;
  amount_nano_raw: string;
  recipient_name: string;
  status: string;
  version: number;
  created_at: Date | string;
  expires_at: Date | string;
}

const COLUMNS = `redeem_code, creator_session_id, currency, amount_usd_micro::text AS amount_usd_micro,
  amount_nano_raw::text AS amount_nano_raw, recipient_name, status, version, created_at, expires_at`;

const amountsOf = (r: Row): Amounts => ({ usdMicro: BigInt(r.amount_usd_micro), nanoRaw: BigInt(r.amount_nano_raw) });

function toView(r: Row): Invitation {
  const currency = r.currency === 'XNO' ? 'XNO' : 'USD';
  const expiresAt = new Date(r.expires_at).getTime();
  const status = (r.status === 'active' && expiresAt <= Date.now() ? 'expired' : r.status) as InvitationStatus;
  return {
    amount: currency === 'USD' ? formatUsdMicro(BigInt(r.amount_usd_micro)) : formatNanoRaw(BigInt(r.amount_nano_raw)),
    redeemCode: r.redeem_code,
    recipientName: r.recipient_name,
    createdAt: new Date(r.created_at).getTime(),
    expiresAt,
    status,
    currency,
  };
}

async function lockOwn(tx: Queryable, sessionId: string, code: string): Promise<Row> {
  const rows = await tx.query<Row>(`SELECT ${COLUMNS} FROM invitations WHERE redeem_code = $1 FOR UPDATE`, [code]);
  const r = rows[0];
  if (!r || r.creator_session_id !== sessionId || r.status === 'deleted') throw new InvitationError('InviteNotFound', 404, 'No such invitation');
  if (r.status === 'redeemed') throw new InvitationError('InviteRedeemed', 409, 'This invitation has already been redeemed');
  return r;
}

export class Invitations {
  constructor(private readonly db: Db) {}

  async create(sessionId: string, input: { amount: unknown; currency: 'USD' | 'XNO'; recipientName: string; expiresAt: unknown }): Promise<Invitation> {
    const amounts = parseInvitationAmount(input.amount, input.currency);
    const expiresAt = parseExpiresAt(input.expiresAt, Date.now());
    const code = newRedeemCode();
    return this.db.transaction(async (tx) => {
      const moved = await debitInTx(tx, sessionId, `invite:${code}:reserve`, amounts, 'invitation reserved');
      if (!moved.ok) throw new InvitationError('InsufficientBalance', 402, 'The balance does not cover the invitation');
      const rows = await tx.query<Row>(
        `INSERT INTO invitations (redeem_code, creator_session_id, currency, amount_usd_micro, amount_nano_raw, recipient_name, expires_at)
         VALUES ($1, $2, $3, $4::bigint, $5::numeric, $6, to_timestamp($7::float8 / 1000)) RETURNING ${COLUMNS}`,
        [code, sessionId, input.currency, amounts.usdMicro.toString(), amounts.nanoRaw.toString(), input.recipientName.trim(), expiresAt],
      );
      return toView(rows[0] as Row);
    });
  }

  async update(sessionId: string, input: { redeemCode: string; amount?: unknown; recipientName?: string; expiresAt?: unknown }): Promise<Invitation> {
    return this.db.transaction(async (tx) => {
      const r = await lockOwn(tx, sessionId, input.redeemCode);
      if (r.status !== 'active') throw new InvitationError('InviteNotFound', 404, `The invitation is ${r.status}`);
      const currency = r.currency === 'XNO' ? 'XNO' : 'USD';
      const old = amountsOf(r);
      const next = input.amount === undefined ? old : parseInvitationAmount(input.amount, currency);
      const expiresAt = input.expiresAt === undefined ? new Date(r.expires_at).getTime() : parseExpiresAt(input.expiresAt, Date.now());
      const version = r.version + 1;
      const more: Amounts = { usdMicro: next.usdMicro - old.usdMicro, nanoRaw: next.nanoRaw - old.nanoRaw };
      if (more.usdMicro > 0n || more.nanoRaw > 0n) {
        const moved = await debitInTx(tx, sessionId, `invite:${r.redeem_code}:v${version}:more`, more, 'invitation raised');
        if (!moved.ok) throw new InvitationError('InsufficientBalance', 402, 'The balance does not cover the new amount');
      } else if (more.usdMicro < 0n || more.nanoRaw < 0n) {
        await creditInTx(tx, sessionId, `invite:${r.redeem_code}:v${version}:back`, { usdMicro: -more.usdMicro, nanoRaw: -more.nanoRaw }, 'invitation lowered');
      }
      const rows = await tx.query<Row>(
        `UPDATE invitations SET amount_usd_micro = $2::bigint, amount_nano_raw = $3::numeric, recipient_name = $4,
           expires_at = to_timestamp($5::float8 / 1000), version = $6
         WHERE redeem_code = $1 AND status = 'active' AND version = $7 RETURNING ${COLUMNS}`,
        [r.redeem_code, next.usdMicro.toString(), next.nanoRaw.toString(), (input.recipientName ?? r.recipient_name).trim(), expiresAt, version, r.version],
      );
      if (!rows[0]) throw new Error('Invitation changed while locked');
      return toView(rows[0]);
    });
  }

  async redeem(sessionId: string, code: string | undefined): Promise<{ amount: string; currency: 'USD' | 'XNO' }> {
    const c = (code ?? '').trim().toUpperCase();
    if (!c) throw new InvitationError('MissingRedeemCode', 400, 'Missing redeem code');
    return this.db.transaction(async (tx) => {
      const taken = await tx.query<Row>(
        `UPDATE invitations SET status = 'redeemed', redeemed_by = $2, closed_at = now()
         WHERE redeem_code = $1 AND status = 'active' AND expires_at > now() RETURNING ${COLUMNS}`,
        [c, sessionId],
      );
      const r = taken[0];
      if (!r) {
        const rows = await tx.query<{ status: string; expired: boolean }>(
          'SELECT status, expires_at <= now() AS expired FROM invitations WHERE redeem_code = $1',
          [c],
        );
        const s = rows[0];
        if (s && (s.status === 'expired' || s.status === 'blocked' || (s.status === 'active' && s.expired))) {
          throw new InvitationError('NoAmountToRedeem', 409, 'The invitation has no amount to redeem');
        }
        throw new InvitationError('InviteNotFound', 404, 'Invitation could not be redeemed');
      }
      const amounts = amountsOf(r);
      if (amounts.usdMicro === 0n && amounts.nanoRaw === 0n) throw new InvitationError('NoAmountToRedeem', 409, 'The invitation has no amount to redeem');
      await creditInTx(tx, sessionId, `invite:${c}:redeem`, amounts, 'invitation redeemed');
      const view = toView({ ...r, status: 'redeemed' });
      return { amount: view.amount, currency: view.currency };
    });
  }

  async remove(sessionId: string, code: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const r = await lockOwn(tx, sessionId, code);
      if (r.status === 'active') await creditInTx(tx, sessionId, `invite:${r.redeem_code}:refund`, amountsOf(r), 'invitation deleted');
      await tx.query(`UPDATE invitations SET status = 'deleted', closed_at = now() WHERE redeem_code = $1`, [r.redeem_code]);
    });
  }

  async list(sessionId: string): Promise<Invitation[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM invitations WHERE creator_session_id = $1 AND status <> 'deleted' ORDER BY created_at DESC LIMIT 200`,
      [sessionId],
    );
    return rows.map(toView);
  }

  /** Refunds active invitations past their expiry to their creators; returns how many. Safe on several gateways. */
  async expire(limit = 100): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `SELECT ${COLUMNS} FROM invitations WHERE status = 'active' AND expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      for (const r of rows) {
        await creditInTx(tx, r.creator_session_id, `invite:${r.redeem_code}:refund`, amountsOf(r), 'invitation expired');
        await tx.query(`UPDATE invitations SET status = 'expired', closed_at = now() WHERE redeem_code = $1`, [r.redeem_code]);
      }
      return rows.length;
    });
  }
}
