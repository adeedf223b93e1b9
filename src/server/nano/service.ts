/**
 * Nano deposits (spec 001 sections 4 and 7): each session gets its own deposit account, index n of the operator's
 * seed (nanocurrency derives the keys); the engine watches the account on a node's websocket and, for each send it
 * sees, asks the gateway to confirm it. Nothing the browser says is trusted: the gateway reads the block from a
 * node's RPC and credits only a confirmed send whose link is this session's account, once per block hash (the
 * ledger key 'nano:{hash}'), in raw as bigint. A forged socket message or a replayed hash credits nothing.
 *
 * Wallet actions: check receivables (credit what the socket missed, then receive the blocks into the account),
 * get and change the representative (a signed change block; before the account is opened the choice is kept and
 * used by its open block), convert nano to USD (a ledger move at the configured nano price).
 */
import { randomBytes } from 'node:crypto';
import { checkAddress, createBlock, deriveAddress, derivePublicKey, deriveSecretKey } from 'nanocurrency';
import type { Db } from '../db/types';
import type { Ledger } from '../money/ledger';
import { creditInTx, debitInTx } from '../money/transfers';
import { formatNanoRaw, formatUsdMicro, nanoRawToUsdMicro } from '../money/amounts';
import type { NanoNodeConfig } from '../payments/config';
import { NanoRpc } from './rpc';

const MAX_RAW = 2n ** 128n - 1n;
const ZERO_HASH = '0'.repeat(64);

/** 'xrb_' and 'nano_' spell the same account. */
export function sameAccount(a: string, b: string): boolean {
  const strip = (s: string): string => s.replace(/^(xrb|nano)_/, '');
  return a.length > 0 && strip(a) === strip(b);
}

export class NanoError extends Error {
  override name = 'NanoError';
  constructor(
    readonly code: string,
    readonly status: 400 | 402 | 404 | 409 | 502 | 503,
    message: string,
  ) {
    super(message);
  }
}

export interface ConfirmResult {
  credited: boolean;
  amount: string;
}

interface AccountRow {
  [k: string]: unknown;
  account_index: string;
  address: string;
  representative: string | null;
}

export class NanoDeposits {
  readonly rpc: NanoRpc;
  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    readonly cfg: NanoNodeConfig,
  ) {
    this.rpc = new NanoRpc(cfg.rpcUrls);
  }

  private keys(index: bigint): { secretKey: string; publicKey: string; address: string } {
    const secretKey = deriveSecretKey(this.cfg.seed, Number(index));
    const publicKey = derivePublicKey(secretKey);
    return { secretKey, publicKey, address: deriveAddress(publicKey, { useNanoPrefix: true }) };
  }

  private async account(sessionId: string): Promise<AccountRow | null> {
    const rows = await this.db.query<AccountRow>(
      'SELECT account_index::text AS account_index, address, representative FROM nano_accounts WHERE session_id = $1',
      [sessionId],
    );
    return rows[0] ?? null;
  }

  /** The session's deposit address, made on first use (index from a sequence, so two sessions never share one). */
  async address(sessionId: string): Promise<string> {
    const have = await this.account(sessionId);
    if (have) return have.address;
    const idx = await this.db.query<{ n: string }>("SELECT nextval('nano_account_index_seq')::text AS n");
    const index = BigInt(idx[0]?.n ?? '0');
    if (index <= 0n || index > 0xffffffffn) throw new NanoError('NANO_UNAVAILABLE', 503, 'No more deposit accounts can be derived');
    const { address } = this.keys(index);
    await this.db.transaction(async (tx) => {
      const ins = await tx.query(
        `INSERT INTO nano_accounts (session_id, account_index, address) VALUES ($1, $2::bigint, $3) ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
        [sessionId, index.toString(), address],
      );
      if (ins.length > 0) await tx.query('UPDATE sessions SET nano_deposit_address = $2 WHERE id = $1', [sessionId, address]);
    });
    return (await this.account(sessionId))?.address ?? address;
  }

  /** Credits one confirmed send to the session's account; see the file comment. */
  async confirm(sessionId: string, hash: string): Promise<ConfirmResult> {
    const acct = await this.account(sessionId);
    if (!acct) throw new NanoError('NO_DEPOSIT_ADDRESS', 404, 'This session has no nano deposit address yet');
    const h = hash.toUpperCase();
    const info = await this.rpc.blockInfo(h).catch(() => {
      throw new NanoError('NODE_UNAVAILABLE', 502, 'No nano node could confirm the block');
    });
    if (!info) throw new NanoError('BLOCK_NOT_FOUND', 404, 'The node does not know this block');
    const toUs = sameAccount(info.linkAsAccount, acct.address) || (info.link.length === 64 && sameAccount(deriveAddress(info.link, { useNanoPrefix: true }), acct.address));
    if (info.subtype !== 'send' || !toUs) throw new NanoError('NOT_A_DEPOSIT', 409, 'The block is not a send to this deposit address');
    if (!info.confirmed) throw new NanoError('NOT_CONFIRMED', 409, 'The block is not confirmed yet');
    if (info.amount <= 0n || info.amount > MAX_RAW) throw new NanoError('NOT_A_DEPOSIT', 409, 'The block carries no valid amount');
    const r = await this.ledger.credit(sessionId, { key: `nano:${h}`, nanoRaw: info.amount, note: `nano deposit ${h}` });
    return { credited: !r.duplicate, amount: formatNanoRaw(info.amount) };
  }

  /** POST /check-receivables: credits each receivable send (confirmed through confirm) and receives it. */
  async checkReceivables(sessionId: string): Promise<{ receivable: string; credited: string[] }> {
    const acct = await this.account(sessionId);
    if (!acct) return { receivable: '0.000000', credited: [] };
    const blocks = await this.rpc.receivable(acct.address).catch(() => {
      throw new NanoError('NODE_UNAVAILABLE', 502, 'No nano node answered');
    });
    let total = 0n;
    const credited: string[] = [];
    for (const [hash, amount] of blocks) {
      total += amount;
      try {
        const r = await this.confirm(sessionId, hash);
        if (r.credited) credited.push(hash);
        await this.receive(acct, hash, amount);
      } catch (e) {
        if (!(e instanceof NanoError)) throw e;
      }
    }
    return { receivable: formatNanoRaw(total), credited };
  }

  /** Pockets a credited send into the deposit account (a receive or open block; work from the node). */
  private async receive(acct: AccountRow, hash: string, amount: bigint): Promise<void> {
    const k = this.keys(BigInt(acct.account_index));
    const info = await this.rpc.accountInfo(acct.address);
    const previous = info?.frontier ?? null;
    const work = await this.rpc.workGenerate(previous ?? k.publicKey);
    const { block } = createBlock(k.secretKey, {
      work,
      previous,
      representative: info?.representative || acct.representative || this.cfg.representative,
      balance: ((info?.balance ?? 0n) + amount).toString(),
      link: hash,
    });
    await this.rpc.process(block as unknown as Record<string, unknown>, previous ? 'receive' : 'open');
  }

  async representative(sessionId: string): Promise<string> {
    const acct = await this.account(sessionId);
    if (!acct) return this.cfg.representative;
    const info = await this.rpc.accountInfo(acct.address).catch(() => null);
    return info?.representative || acct.representative || this.cfg.representative;
  }

  /** Changes the representative: a signed change block when the account is open; else kept for its open block. */
  async changeRepresentative(sessionId: string, representative: string): Promise<{ representative: string; hash: string | null }> {
    if (!checkAddress(representative)) throw new NanoError('INVALID_REPRESENTATIVE', 400, 'Not a nano address');
    await this.address(sessionId);
    const acct = await this.account(sessionId);
    if (!acct) throw new NanoError('NO_DEPOSIT_ADDRESS', 404, 'No deposit account');
    await this.db.query('UPDATE nano_accounts SET representative = $2 WHERE session_id = $1', [sessionId, representative]);
    const info = await this.rpc.accountInfo(acct.address).catch(() => {
      throw new NanoError('NODE_UNAVAILABLE', 502, 'No nano node answered');
    });
    if (!info) return { representative, hash: null };
    const k = this.keys(BigInt(acct.account_index));
    const work = await this.rpc.workGenerate(info.frontier);
    const { block } = createBlock(k.secretKey, { work, previous: info.frontier, representative, balance: info.balance.toString(), link: ZERO_HASH });
    const hash = await this.rpc.process(block as unknown as Record<string, unknown>, 'change');
    return { representative, hash };
  }
}

/**
 * POST /nano/convert-to-usd: moves nano to USD at the nano price, in one transaction (a nano charge and a USD
 * credit, keys 'convert:{id}:out' / ':in'). `amountRaw` null = the whole nano balance.
 */
export async function convertNanoToUsd(db: Db, ledger: Ledger, sessionId: string, amountRaw: bigint | null): Promise<{ amount: string; usd: string }> {
  const id = randomBytes(12).toString('base64url');
  return db.transaction(async (tx) => {
    const rows = await tx.query<{ nano_raw: string }>('SELECT nano_raw::text AS nano_raw FROM sessions WHERE id = $1 FOR UPDATE', [sessionId]);
    const have = BigInt(rows[0]?.nano_raw ?? '0');
    const raw = amountRaw ?? have;
    if (raw <= 0n) throw new NanoError('NOTHING_TO_CONVERT', 400, 'There is no nano to convert');
    if (raw > have) throw new NanoError('INSUFFICIENT_BALANCE', 402, 'The nano balance is lower than the amount');
    const usd = nanoRawToUsdMicro(raw, ledger.nanoPriceUsdMicro);
    if (usd <= 0n) throw new NanoError('NOTHING_TO_CONVERT', 400, 'The amount is worth less than $0.000001');
    const out = await debitInTx(tx, sessionId, `convert:${id}:out`, { usdMicro: 0n, nanoRaw: raw }, 'nano converted to USD');
    if (!out.ok) throw new NanoError('INSUFFICIENT_BALANCE', 402, 'The nano balance is lower than the amount');
    await creditInTx(tx, sessionId, `convert:${id}:in`, { usdMicro: usd, nanoRaw: 0n }, 'nano converted to USD');
    return { amount: formatNanoRaw(raw), usd: formatUsdMicro(usd) };
  });
}
