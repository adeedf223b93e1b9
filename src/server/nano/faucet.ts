/**
 * The nano faucet (spec 001 sections 6 and 9): 0.1 XNO free per session where the operator enables and funds it
 * (PARLEY_NANO_FAUCET_XNO: the XNO it may give away in all; unset or 0 = off). The claim is credited to the
 * session's nano balance through the ledger, in the same transaction as its `faucet_claims` row, so a claim and its
 * credit exist together or not at all.
 *
 * Against abuse (docs/gateway.md "Nano faucet"):
 *  - one claim per session: `faucet_claims.session_id` is the primary key and the ledger key is `faucet:<session>`;
 *  - one claim per client address: a keyed hash of the address (an IPv6 address counts by its /64, which one
 *    household gets) is UNIQUE, so new sessions from the same place get nothing;
 *  - the operator's funds are never overspent: claims run one at a time under an advisory lock that covers the
 *    check of what is left, the row and the credit (parallel claims of one session or one address: exactly one wins);
 *  - claims per address are rate-limited before any of this (nano/routes.ts).
 * The request carries nothing to reuse: no amount, no id; the session and the address decide.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types';
import { addressGroup } from '../guards/client-address';
import type { Ledger } from '../money/ledger';
import { formatUnits, parseDecimal, RAW_PER_XNO } from '../money/amounts';
import { FAUCET_CLAIM_XNO, type FaucetClaim, type FaucetRefusal, type FaucetStatus } from '../../protocol/faucet';

const FAUCET_LOCK_ID = 727_002;
export const FAUCET_CLAIM_RAW = parseDecimal(FAUCET_CLAIM_XNO, 30);

/** A claim refused: the code names why (protocol/faucet.ts has the words). */
export class FaucetRefused extends Error {
  override name = 'FaucetRefused';
  constructor(readonly code: FaucetRefusal) {
    super(code);
  }
}

export class NanoFaucet {
  private secret: Promise<string> | null = null;

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    /** What the operator funds the faucet with, raw; 0 = off. */
    readonly fundsRaw: bigint,
  ) {}

  get enabled(): boolean {
    return this.fundsRaw > 0n;
  }

  private async hash(address: string): Promise<string> {
    this.secret ??= (async () => {
      await this.db.query(`INSERT INTO gateway_secrets (name, value) VALUES ('faucet', $1) ON CONFLICT (name) DO NOTHING`, [randomBytes(32).toString('base64url')]);
      const rows = await this.db.query<{ value: string }>(`SELECT value FROM gateway_secrets WHERE name = 'faucet'`);
      const v = rows[0]?.value;
      if (!v) throw new Error('faucet secret missing');
      return v;
    })();
    return createHmac('sha256', await this.secret).update(addressGroup(address)).digest('hex');
  }

  private async paidRaw(q: Queryable): Promise<bigint> {
    const rows = await q.query<{ paid: string }>('SELECT COALESCE(SUM(nano_raw), 0)::text AS paid FROM faucet_claims');
    return BigInt(rows[0]?.paid ?? '0');
  }

  async status(sessionId: string): Promise<FaucetStatus> {
    const amount = FAUCET_CLAIM_XNO;
    if (!this.enabled) return { enabled: false, amount, claimed: false, empty: true };
    const mine = await this.db.query('SELECT 1 FROM faucet_claims WHERE session_id = $1', [sessionId]);
    return { enabled: true, amount, claimed: mine.length > 0, empty: this.fundsRaw - (await this.paidRaw(this.db)) < FAUCET_CLAIM_RAW };
  }

  /** Credits 0.1 XNO to the session, or throws FaucetRefused. `address` is the client's network address. */
  async claim(sessionId: string, address: string): Promise<FaucetClaim> {
    if (!this.enabled) throw new FaucetRefused('FAUCET_OFF');
    const addressHash = await this.hash(address);
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [FAUCET_LOCK_ID]);
      const taken = await tx.query<{ session_id: string }>('SELECT session_id FROM faucet_claims WHERE session_id = $1 OR address_hash = $2', [sessionId, addressHash]);
      if (taken.some((r) => r.session_id === sessionId)) throw new FaucetRefused('ALREADY_CLAIMED');
      if (taken.length > 0) throw new FaucetRefused('ADDRESS_USED');
      if (this.fundsRaw - (await this.paidRaw(tx)) < FAUCET_CLAIM_RAW) throw new FaucetRefused('FAUCET_EMPTY');
      await tx.query('INSERT INTO faucet_claims (session_id, address_hash, nano_raw) VALUES ($1, $2, $3::numeric)', [sessionId, addressHash, FAUCET_CLAIM_RAW.toString()]);
      const credit = await this.ledger.creditWithin(tx, sessionId, { key: `faucet:${sessionId}`, nanoRaw: FAUCET_CLAIM_RAW, note: 'nano faucet' });
      // The ledger key is the session's: a credit already there means a claim row was lost, which the lock rules out.
      if (credit.duplicate) throw new FaucetRefused('ALREADY_CLAIMED');
      return { amount: FAUCET_CLAIM_XNO, nanoBalance: formatUnits((credit.balance.nanoRaw * 1_000_000n) / RAW_PER_XNO, 6) };
    });
  }
}
