/**
 * A nano node's JSON RPC (the operator's nodes, PARLEY_NANO_RPC_URLS), tried in order: a node that fails or takes
 * over 5 s gives way to the next. Only the actions the gateway needs.
 */
export class NanoRpcError extends Error {
  override name = 'NanoRpcError';
}

const TIMEOUT_MS = 5_000;

export interface BlockInfo {
  blockAccount: string;
  amount: bigint;
  confirmed: boolean;
  subtype: string;
  linkAsAccount: string;
  link: string;
}

export interface AccountInfo {
  frontier: string;
  balance: bigint;
  representative: string;
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'boolean' ? String(v) : '');

function raw(v: unknown): bigint {
  const s = text(v);
  if (!/^\d{1,40}$/.test(s)) throw new NanoRpcError(`not a raw amount: ${s.slice(0, 50)}`);
  return BigInt(s);
}

export class NanoRpc {
  constructor(private readonly urls: readonly string[]) {}

  async call(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let last: unknown = null;
    for (const url of this.urls) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        if (!res.ok) throw new NanoRpcError(`HTTP ${res.status}`);
        return obj(await res.json());
      } catch (e) {
        last = e;
      }
    }
    throw new NanoRpcError(`no node answered ${String(body.action)}: ${last instanceof Error ? last.message : String(last)}`);
  }

  async blockInfo(hash: string): Promise<BlockInfo | null> {
    const r = await this.call({ action: 'block_info', json_block: 'true', hash });
    if (r.error !== undefined) return null;
    const contents = obj(r.contents);
    return {
      blockAccount: text(r.block_account),
      amount: raw(r.amount),
      confirmed: text(r.confirmed) === 'true',
      subtype: text(r.subtype),
      linkAsAccount: text(contents.link_as_account),
      link: text(contents.link),
    };
  }

  /** Hashes of blocks waiting to be received by `account`, with their amounts. */
  async receivable(account: string): Promise<Map<string, bigint>> {
    const r = await this.call({ action: 'receivable', account, count: '100', threshold: '1', source: 'true' });
    const out = new Map<string, bigint>();
    const blocks = r.blocks;
    if (typeof blocks !== 'object' || blocks === null) return out;
    for (const [hash, v] of Object.entries(blocks as Record<string, unknown>)) {
      if (!/^[0-9A-F]{64}$/i.test(hash)) continue;
      out.set(hash.toUpperCase(), typeof v === 'string' ? raw(v) : raw(obj(v).amount));
    }
    return out;
  }

  async accountInfo(account: string): Promise<AccountInfo | null> {
    const r = await this.call({ action: 'account_info', account, representative: 'true' });
    if (r.error !== undefined) return null;
    return { frontier: text(r.frontier), balance: raw(r.balance), representative: text(r.representative) };
  }

  async workGenerate(hash: string): Promise<string> {
    const r = await this.call({ action: 'work_generate', hash });
    const work = text(r.work);
    if (!/^[0-9a-f]{16}$/i.test(work)) throw new NanoRpcError(`work_generate: ${text(r.error) || 'no work'}`);
    return work;
  }

  async process(block: Record<string, unknown>, subtype: string): Promise<string> {
    const r = await this.call({ action: 'process', json_block: 'true', subtype, block });
    const hash = text(r.hash);
    if (!/^[0-9A-F]{64}$/i.test(hash)) throw new NanoRpcError(`process: ${text(r.error) || 'no hash'}`);
    return hash;
  }
}
