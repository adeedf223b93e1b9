/**
 * Operator actions shared by the admin command (src/server/admin/cli.ts) and the gateway's loopback admin routes.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/types';
import { LedgerInputError, type Ledger } from '../money/ledger';
import { AmountError, formatNanoRaw, formatUsdMicro, parseDecimal } from '../money/amounts';
import { listHolds } from '../money/holds';
import { findSession } from '../sessions/store';

export class AdminError extends Error {
  override name = 'AdminError';
}

/** The idempotency key already names another operation (other session, amount or currency): HTTP 409. */
export class AdminConflictError extends AdminError {
  override name = 'AdminConflictError';
}

/** Largest single credit, a guard against typos: 1,000,000 USD or 1,000,000,000 XNO. */
const MAX_USD_MICRO = 1_000_000n * 1_000_000n;
const MAX_NANO_RAW = 1_000_000_000n * 10n ** 30n;

export interface CreditCommand {
  /** Session id (ses_...) or sessionUUID. */
  session: string;
  /** Decimal amount, e.g. "5" or "0.25". */
  amount: string;
  currency: 'USD' | 'XNO';
  /** Idempotency key; default a fresh one (every run credits). */
  key?: string;
}

export interface CreditOutcome {
  sessionId: string;
  duplicate: boolean;
  credited: string;
  currency: 'USD' | 'XNO';
  usd_balance: string;
  nano_balance: string;
}

export function parseAmount(amount: string, currency: 'USD' | 'XNO'): bigint {
  let units: bigint;
  try {
    units = currency === 'USD' ? parseDecimal(amount, 6, 'USD amount') : parseDecimal(amount, 30, 'XNO amount');
  } catch (e) {
    throw new AdminError(e instanceof AmountError ? e.message : String(e));
  }
  if (units <= 0n) throw new AdminError(`The amount must be above 0, got '${amount}'`);
  if (currency === 'USD' && units > MAX_USD_MICRO) throw new AdminError('At most 1000000 USD per credit');
  if (currency === 'XNO' && units > MAX_NANO_RAW) throw new AdminError('At most 1000000000 XNO per credit');
  return units;
}

export async function creditSession(db: Db, ledger: Ledger, cmd: CreditCommand): Promise<CreditOutcome> {
  const units = parseAmount(cmd.amount, cmd.currency);
  const session = await findSession(db, cmd.session.trim());
  if (!session) throw new AdminError(`No session '${cmd.session}' (use the id 'ses_...' or the sessionUUID from GET /auth/local-session)`);
  const key = cmd.key ?? `admin:${randomUUID()}`;
  const clash = `The key '${key}' was already used for a different operation; nothing changed (use a new --key, or the same amount, currency and session to repeat it safely)`;
  let r: Awaited<ReturnType<Ledger['credit']>>;
  try {
    r = await ledger.credit(session.id, {
      key,
      ...(cmd.currency === 'USD' ? { usdMicro: units } : { nanoRaw: units }),
      note: 'admin credit',
    });
  } catch (e) {
    if (e instanceof LedgerInputError && /idempotency key/i.test(e.message)) throw new AdminConflictError(clash);
    throw e;
  }
  // The same key for another amount or currency on this session is a clash too, not a silent replay.
  if (r.duplicate && (cmd.currency === 'USD' ? r.creditedUsdMicro !== units || r.creditedNanoRaw !== 0n : r.creditedNanoRaw !== units || r.creditedUsdMicro !== 0n)) {
    throw new AdminConflictError(clash);
  }
  return {
    sessionId: session.id,
    duplicate: r.duplicate,
    credited: cmd.currency === 'USD' ? formatUsdMicro(r.creditedUsdMicro) : formatNanoRaw(r.creditedNanoRaw),
    currency: cmd.currency,
    usd_balance: formatUsdMicro(r.balance.usdMicro),
    nano_balance: formatNanoRaw(r.balance.nanoRaw),
  };
}

export interface SessionSummary {
  sessionId: string;
  sessionUUID: string;
  usd_balance: string;
  nano_balance: string;
  numReplies: number;
  /** The latest holds (money reserved for requests, docs/gateway.md "Holds"), one printable line each, newest first. */
  holds: string[];
}

export async function showSession(db: Db, idOrUuid: string): Promise<SessionSummary> {
  const s = await findSession(db, idOrUuid.trim());
  if (!s) throw new AdminError(`No session '${idOrUuid}'`);
  return {
    sessionId: s.id,
    sessionUUID: s.sessionUUID,
    usd_balance: formatUsdMicro(s.usdMicro),
    nano_balance: formatNanoRaw(s.nanoRaw),
    numReplies: s.numReplies,
    holds: (await listHolds(db, s.id, 10)).map(
      (h) =>
        `${h.status} ${formatUsdMicro(h.maxUsdMicro)} USD max from ${h.source}` +
        `${h.settledUsdMicro === null ? '' : `, charged ${formatUsdMicro(h.settledUsdMicro)}`}; ${h.key}; made ${h.createdAt}, expires ${h.expiresAt}`,
    ),
  };
}
