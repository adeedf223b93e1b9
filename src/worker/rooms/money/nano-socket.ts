/**
 * The nano deposit websocket (spec 001 sections 4 and 7): connects to the configured nodes in order, subscribes to
 * confirmations for the session's deposit address, and reports each send to it once (by block hash). A connection
 * that is not open within 5 s moves on to the next node; a dropped one reconnects (backoff 1 s doubling to 30 s,
 * next node each time). States: connecting, connected, closed (a connection that was up went away), error (a
 * connection failed, or the socket could not be made; it stays shown until the next attempt).
 *
 * It only reports: the engine asks the gateway to confirm each hash against a node's RPC before anything is
 * credited (DESIGN rule 9), so a forged or replayed message here changes nothing.
 */

export type NanoSocketState = 'idle' | 'connecting' | 'connected' | 'closed' | 'error';

/** Spec 001 section 4: a connection attempt that takes more than 5 seconds moves on to the next node. */
export const NANO_CONNECT_TIMEOUT_MS = 5_000;

/** What the service needs of a WebSocket (the browser's, or the ws package's in tests). */
export interface SocketLike {
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
  close(): void;
}
export type SocketFactory = (url: string) => SocketLike;

export interface NanoSend {
  hash: string;
  amountRaw: bigint;
}

export interface NanoSocketOptions {
  urls: readonly string[];
  account: string;
  open: SocketFactory;
  onSend(send: NanoSend): void;
  onState(state: NanoSocketState, url: string | null): void;
  connectTimeoutMs?: number;
  /** Tests shorten the reconnect backoff. */
  backoffMs?: (attempt: number) => number;
}

const norm = (a: string): string => a.replace(/^(xrb|nano)_/, '');
const RAW = /^\d{1,40}$/;
const HASH = /^[0-9A-Fa-f]{64}$/;

/** The subscription message of spec 001 section 7, for one account. */
export function subscribeMessage(account: string): string {
  return JSON.stringify({ action: 'subscribe', topic: 'confirmation', ack: true, options: { accounts: [account] } });
}

/** A confirmation message's send to `account`, or null for anything else (acks, other accounts, other subtypes). */
export function sendOf(data: unknown, account: string): NanoSend | null {
  const text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? new TextDecoder().decode(data) : String(data);
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof msg !== 'object' || msg === null) return null;
  const m = msg as { topic?: unknown; message?: { hash?: unknown; amount?: unknown; block?: { subtype?: unknown; link_as_account?: unknown } } };
  if (m.topic !== 'confirmation' || !m.message) return null;
  const { hash, amount, block } = m.message;
  if (typeof hash !== 'string' || !HASH.test(hash) || typeof amount !== 'string' || !RAW.test(amount)) return null;
  if (block?.subtype !== 'send' || typeof block.link_as_account !== 'string' || norm(block.link_as_account) !== norm(account)) return null;
  const amountRaw = BigInt(amount);
  return amountRaw > 0n ? { hash: hash.toUpperCase(), amountRaw } : null;
}

export class NanoDepositSocket {
  private socket: SocketLike | null = null;
  private node = 0;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;
  private readonly seen = new Set<string>();

  constructor(private readonly opts: NanoSocketOptions) {}

  start(): void {
    if (!this.stopped || this.opts.urls.length === 0) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const s = this.socket;
    this.socket = null;
    if (s) {
      s.onclose = s.onerror = s.onmessage = s.onopen = null;
      s.close();
    }
    this.opts.onState('closed', null);
  }

  private connect(): void {
    if (this.stopped) return;
    const url = this.opts.urls[this.node % this.opts.urls.length] as string;
    this.opts.onState('connecting', url);
    let socket: SocketLike;
    try {
      socket = this.opts.open(url);
    } catch {
      this.opts.onState('error', url);
      this.retry();
      return;
    }
    this.socket = socket;
    const timeout = setTimeout(() => {
      // Not open within the limit: drop it and try the next node at once.
      if (this.socket !== socket) return;
      socket.onclose = socket.onerror = socket.onmessage = socket.onopen = null;
      socket.close();
      this.socket = null;
      this.node++;
      this.connect();
    }, this.opts.connectTimeoutMs ?? NANO_CONNECT_TIMEOUT_MS);
    socket.onopen = () => {
      clearTimeout(timeout);
      this.attempt = 0;
      socket.send(subscribeMessage(this.opts.account));
      this.opts.onState('connected', url);
    };
    socket.onmessage = (ev) => {
      const send = sendOf(ev.data, this.opts.account);
      if (!send || this.seen.has(send.hash)) return;
      this.seen.add(send.hash);
      this.opts.onSend(send);
    };
    /** The connection failed (an error event): its close that follows keeps showing 'error', not 'closed'. */
    let failed = false;
    socket.onerror = () => {
      if (this.socket !== socket) return;
      failed = true;
      this.opts.onState('error', url);
    };
    socket.onclose = () => {
      clearTimeout(timeout);
      if (this.socket !== socket) return;
      this.socket = null;
      if (!failed) this.opts.onState('closed', url);
      this.node++;
      this.retry();
    };
  }

  private retry(): void {
    if (this.stopped) return;
    const delay = this.opts.backoffMs ? this.opts.backoffMs(this.attempt) : Math.min(30_000, 1000 * 2 ** this.attempt);
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }
}
