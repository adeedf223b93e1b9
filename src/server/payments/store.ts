/**
 * payment_transactions and the one place a payment becomes money: settlePayment. Crediting is idempotent by the
 * transaction ('payment:{id}' in the ledger), and the status only moves forward with conditional updates, so a
 * provider event delivered 20 times, out of order, or retried after a crash between confirmation and credit
 * credits exactly once:
 *
 *   completed: credit first (a second credit of the key is a no-op), then mark completed from any other state (a
 *              payment that arrives after the transaction expired locally is still money received).
 *   failed / expired: only from pending; never undoes a completion.
 *
 * The order matters: marking before crediting would lose the credit if the process died in between; crediting
 * first and marking after makes a retry finish the job.
 */
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types';
import type { Ledger } from '../money/ledger';
import { PAYMENT_EXPIRY_MS, isTicker, type PaymentStatus, type Ticker } from '../../protocol/payments';
import type { ProviderEvent, TxRecord } from './types';

interface TxRow {
  [k: string]: unknown;
  id: string;
  session_id: string;
  provider: string;
  ticker: string;
  purpose: string;
  amount: string;
  usd_micro: string;
  provider_ref: string | null;
  payment_link: string | null;
  checkout_token: string;
  payment_nonce: string | null;
  provider_paid: boolean;
  status: string;
  created_at: Date | string;
  expires_at: Date | string;
}

const COLUMNS = `id, session_id, provider, ticker, purpose, amount, usd_micro::text AS usd_micro, provider_ref, payment_link,
  checkout_token, payment_nonce, provider_paid, status, created_at, expires_at`;

function fromRow(r: TxRow): TxRecord {
  return {
    id: r.id,
    sessionId: r.session_id,
    provider: r.provider,
    ticker: (isTicker(r.ticker) ? r.ticker : 'USD') as Ticker,
    purpose: r.purpose === 'recharge' ? 'recharge' : 'deposit',
    amount: r.amount,
    usdMicro: BigInt(r.usd_micro),
    providerRef: r.provider_ref,
    paymentLink: r.payment_link,
    checkoutToken: r.checkout_token,
    paymentNonce: r.payment_nonce,
    providerPaid: r.provider_paid === true,
    status: r.status as PaymentStatus,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
  };
}

export function newTxId(): string {
  return `tx_${randomBytes(15).toString('base64url')}`;
}

export async function insertTx(
  db: Queryable,
  t: { id: string; sessionId: string; provider: string; ticker: Ticker; purpose: 'deposit' | 'recharge'; amount: string; usdMicro: bigint; daimo?: boolean },
): Promise<TxRecord> {
  const rows = await db.query<TxRow>(
    `INSERT INTO payment_transactions (id, session_id, provider, ticker, purpose, amount, usd_micro, checkout_token, expires_at, payment_nonce)
     VALUES ($1, $2, $3, $4, $5, $6, $7::bigint, $8, now() + ($9::float8 * interval '1 millisecond'), $10)
     RETURNING ${COLUMNS}`,
    [t.id, t.sessionId, t.provider, t.ticker, t.purpose, t.amount, t.usdMicro.toString(), randomBytes(24).toString('base64url'), PAYMENT_EXPIRY_MS,
      t.daimo ? randomBytes(18).toString('base64url') : null],
  );
  const r = rows[0];
  if (!r) throw new Error('payment insert returned no row');
  return fromRow(r);
}

/** The provider says a Daimo-style deposit was paid: it waits for the app's redeem call (nothing is credited yet). */
export async function markProviderPaid(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE payment_transactions SET provider_paid = true WHERE id = $1 AND status = 'pending'`, [id]);
}

export async function setCheckout(db: Queryable, id: string, providerRef: string, paymentLink: string): Promise<void> {
  await db.query('UPDATE payment_transactions SET provider_ref = $2, payment_link = $3 WHERE id = $1', [id, providerRef, paymentLink]);
}

export async function getTx(db: Queryable, id: string): Promise<TxRecord | null> {
  const rows = await db.query<TxRow>(`SELECT ${COLUMNS} FROM payment_transactions WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function getTxByRef(db: Queryable, provider: string, ref: string): Promise<TxRecord | null> {
  const rows = await db.query<TxRow>(`SELECT ${COLUMNS} FROM payment_transactions WHERE provider = $1 AND provider_ref = $2`, [provider, ref]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** A session has a completed deposit (the card minimum is then $5, spec 001 section 5). */
export async function hasPriorDeposit(db: Queryable, sessionId: string): Promise<boolean> {
  const rows = await db.query(`SELECT 1 FROM payment_transactions WHERE session_id = $1 AND status = 'completed' LIMIT 1`, [sessionId]);
  return rows.length > 0;
}

/** Pending transactions past their expiry, for the sweep. */
export async function overdueTxs(db: Queryable, limit: number): Promise<TxRecord[]> {
  const rows = await db.query<TxRow>(
    `SELECT ${COLUMNS} FROM payment_transactions WHERE status = 'pending' AND expires_at < now() ORDER BY expires_at LIMIT $1`,
    [limit],
  );
  return rows.map(fromRow);
}

export interface SettleDeps {
  db: Db;
  ledger: Ledger;
}

/**
 * Applies one outcome to a transaction (see the file comment). `event` names the provider event that said so
 * (recorded once in payment_events); returns the transaction's status afterwards.
 */
export async function settlePayment(deps: SettleDeps, tx: TxRecord, outcome: PaymentStatus, event: { provider: string; id: string }): Promise<PaymentStatus> {
  await deps.db.query(
    `INSERT INTO payment_events (provider, event_id, tx_id, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT (provider, event_id) DO NOTHING`,
    [event.provider, event.id.slice(0, 200), tx.id, outcome],
  );
  if (outcome === 'pending') return currentStatus(deps.db, tx.id);
  if (outcome === 'completed') {
    await deps.ledger.credit(tx.sessionId, { key: `payment:${tx.id}`, usdMicro: tx.usdMicro, note: `${tx.purpose} ${tx.amount} ${tx.ticker} via ${tx.provider}` });
    await deps.db.query(`UPDATE payment_transactions SET status = 'completed', settled_at = now() WHERE id = $1 AND status <> 'completed'`, [tx.id]);
  } else {
    await deps.db.query(`UPDATE payment_transactions SET status = $2, settled_at = now() WHERE id = $1 AND status = 'pending'`, [tx.id, outcome]);
  }
  return currentStatus(deps.db, tx.id);
}

async function currentStatus(db: Queryable, id: string): Promise<PaymentStatus> {
  const rows = await db.query<{ status: string }>('SELECT status FROM payment_transactions WHERE id = $1', [id]);
  return (rows[0]?.status ?? 'failed') as PaymentStatus;
}

/** The transaction a provider event names, by our id or the provider's reference. */
export async function txOfEvent(db: Queryable, provider: string, e: ProviderEvent): Promise<TxRecord | null> {
  if (e.txId) {
    const tx = await getTx(db, e.txId);
    if (tx && tx.provider === provider) return tx;
  }
  if (e.providerRef) return getTxByRef(db, provider, e.providerRef);
  return null;
}

export async function saveMethod(db: Queryable, sessionId: string, provider: string, saved: { customerRef: string; methodRef: string | null }): Promise<void> {
  await db.query(
    `INSERT INTO payment_customers (session_id, provider, customer_ref, method_ref) VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id, provider) DO UPDATE SET customer_ref = EXCLUDED.customer_ref, method_ref = COALESCE(EXCLUDED.method_ref, payment_customers.method_ref)`,
    [sessionId, provider, saved.customerRef, saved.methodRef],
  );
}

export async function savedMethod(db: Queryable, sessionId: string, provider: string): Promise<{ customerRef: string; methodRef: string | null } | null> {
  const rows = await db.query<{ customer_ref: string; method_ref: string | null }>(
    'SELECT customer_ref, method_ref FROM payment_customers WHERE session_id = $1 AND provider = $2',
    [sessionId, provider],
  );
  const r = rows[0];
  return r ? { customerRef: r.customer_ref, methodRef: r.method_ref } : null;
}
