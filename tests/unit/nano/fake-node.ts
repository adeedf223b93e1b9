/**
 * A fake nano node on loopback for the tests: JSON RPC (block_info, receivable, account_info, work_generate,
 * process) and the confirmation websocket on the same port. Tests add blocks, push confirmations (duplicates, out
 * of order, to other accounts), drop sockets and delay handshakes. Nothing reaches a real node.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashBlock } from 'nanocurrency';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeBlock {
  hash: string;
  /** Sender. */
  account: string;
  /** Receiver (link_as_account) of a send. */
  to: string;
  amount: bigint;
  subtype: 'send' | 'receive' | 'change';
  confirmed: boolean;
  received?: boolean;
}

export interface FakeNode {
  rpcUrl: string;
  wsUrl: string;
  blocks: Map<string, FakeBlock>;
  accounts: Map<string, { frontier: string; balance: bigint; representative: string }>;
  processed: Record<string, unknown>[];
  rpcCalls: Record<string, unknown>[];
  subscriptions: unknown[];
  sockets: Set<WebSocket>;
  /** Delay before a websocket handshake completes, ms. */
  handshakeDelayMs: number;
  addSend(to: string, amount: bigint, opts?: { confirmed?: boolean; from?: string }): FakeBlock;
  confirm(block: FakeBlock, opts?: { raw?: Record<string, unknown> }): void;
  dropSockets(): void;
  close(): Promise<void>;
}

const norm = (a: string): string => a.replace(/^(xrb|nano)_/, '');
const SENDER = 'nano_1111111111111111111111111111111111111111111111111111hifc8npp';

export async function startFakeNode(): Promise<FakeNode> {
  const blocks = new Map<string, FakeBlock>();
  const accounts = new Map<string, { frontier: string; balance: bigint; representative: string }>();
  const processed: Record<string, unknown>[] = [];
  const rpcCalls: Record<string, unknown>[] = [];
  const subscriptions: unknown[] = [];
  const sockets = new Set<WebSocket>();
  /** Handshakes being held back (handshakeDelayMs), refused at close. */
  const pending = new Map<ReturnType<typeof setTimeout>, (ok: boolean) => void>();

  const rpc = (body: Record<string, unknown>): Record<string, unknown> => {
    rpcCalls.push(body);
    switch (body.action) {
      case 'block_info': {
        const b = blocks.get(String(body.hash).toUpperCase());
        if (!b) return { error: 'Block not found' };
        return {
          block_account: b.account,
          amount: b.amount.toString(),
          confirmed: b.confirmed ? 'true' : 'false',
          subtype: b.subtype,
          contents: { type: 'state', account: b.account, link_as_account: b.to, link: '', balance: '0' },
        };
      }
      case 'receivable': {
        const out: Record<string, { amount: string; source: string }> = {};
        for (const b of blocks.values()) {
          if (b.subtype === 'send' && norm(b.to) === norm(String(body.account)) && !b.received) out[b.hash] = { amount: b.amount.toString(), source: b.account };
        }
        return { blocks: Object.keys(out).length > 0 ? out : '' };
      }
      case 'account_info': {
        const a = accounts.get(norm(String(body.account)));
        return a ? { frontier: a.frontier, balance: a.balance.toString(), representative: a.representative } : { error: 'Account not found' };
      }
      case 'work_generate':
        return { work: '0123456789abcdef', hash: body.hash };
      case 'process': {
        const block = body.block as Record<string, string>;
        processed.push({ ...block, subtype: body.subtype });
        const hash = hashBlock({ account: block.account!, previous: block.previous!, representative: block.representative!, balance: block.balance!, link: block.link! });
        accounts.set(norm(block.account!), { frontier: hash, balance: BigInt(block.balance!), representative: block.representative! });
        const source = blocks.get(String(block.link).toUpperCase());
        if (source && (body.subtype === 'receive' || body.subtype === 'open')) source.received = true;
        return { hash };
      }
      default:
        return { error: 'Unknown action' };
    }
  };

  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = {};
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(rpc(body)));
    });
  });
  const node: FakeNode = {
    rpcUrl: '',
    wsUrl: '',
    blocks,
    accounts,
    processed,
    rpcCalls,
    subscriptions,
    sockets,
    handshakeDelayMs: 0,
    addSend(to, amount, opts = {}) {
      const hash = randomBytes(32).toString('hex').toUpperCase();
      const b: FakeBlock = { hash, account: opts.from ?? SENDER, to, amount, subtype: 'send', confirmed: opts.confirmed ?? true };
      blocks.set(hash, b);
      return b;
    },
    confirm(b, opts = {}) {
      const msg = opts.raw ?? {
        topic: 'confirmation',
        time: String(Date.now()),
        message: {
          account: b.account,
          amount: b.amount.toString(),
          hash: b.hash,
          confirmation_type: 'active_quorum',
          block: { type: 'state', account: b.account, link_as_account: b.to, subtype: b.subtype, balance: '0' },
        },
      };
      for (const s of sockets) s.send(JSON.stringify(msg));
    },
    dropSockets() {
      for (const s of sockets) s.terminate();
      sockets.clear();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.terminate();
        for (const [t, done] of pending) {
          clearTimeout(t);
          done(false);
        }
        wss.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const wss = new WebSocketServer({
    server,
    verifyClient: (_info, done) => {
      if (node.handshakeDelayMs <= 0) return done(true);
      const t = setTimeout(() => {
        pending.delete(t);
        done(true);
      }, node.handshakeDelayMs);
      pending.set(t, done);
    },
  });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      subscriptions.push(msg);
      if (msg.action === 'subscribe' && msg.ack === true) ws.send(JSON.stringify({ ack: 'subscribe', time: String(Date.now()) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  node.rpcUrl = `http://127.0.0.1:${port}`;
  node.wsUrl = `ws://127.0.0.1:${port}`;
  return node;
}
