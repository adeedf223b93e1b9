/**
 * Carries MessagePort traffic over a BroadcastChannel, for browsers without SharedWorker.
 *
 * A BroadcastChannel cannot transfer ports, but Comlink needs them (proxied callbacks travel as ports). A bridge
 * attaches a local port to a link id: what the port receives goes out on the channel tagged with the link, and what
 * arrives for the link is posted into the port. Ports found inside a message are replaced by a token naming a new
 * link, and the far side materialises a fresh MessageChannel for it, so nested proxies work at any depth.
 * Written by hand: no library bridges ports over BroadcastChannel.
 */
interface PortToken {
  __parleyPort: string;
}
interface BridgeMessage {
  link: string;
  data: unknown;
}

function isToken(value: unknown): value is PortToken {
  return typeof value === 'object' && value !== null && typeof (value as PortToken).__parleyPort === 'string';
}

function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export class PortBridge {
  private readonly links = new Map<string, MessagePort>();
  private readonly onChannelMessage = (event: MessageEvent<unknown>) => this.deliver(event.data);

  constructor(private readonly channel: BroadcastChannel) {
    channel.addEventListener('message', this.onChannelMessage);
  }

  /** Connect `port` to the link `id` (the peer attaches the other end of the link to its own port). */
  attach(id: string, port: MessagePort): void {
    this.links.set(id, port);
    port.onmessage = (event: MessageEvent<unknown>) => {
      const message: BridgeMessage = { link: id, data: this.outbound(event.data) };
      this.channel.postMessage(message);
    };
  }

  /** Forget every link (the peer went away). */
  dispose(): void {
    for (const port of this.links.values()) port.close();
    this.links.clear();
    this.channel.removeEventListener('message', this.onChannelMessage);
  }

  private deliver(raw: unknown): void {
    if (typeof raw !== 'object' || raw === null) return;
    const { link, data } = raw as Partial<BridgeMessage>;
    if (typeof link !== 'string') return;
    const port = this.links.get(link);
    if (!port) return; // another pair of tabs' link
    const transfer: Transferable[] = [];
    port.postMessage(this.inbound(data, transfer), transfer);
  }

  private outbound(value: unknown): unknown {
    if (value instanceof MessagePort) {
      const id = crypto.randomUUID();
      this.attach(id, value);
      const token: PortToken = { __parleyPort: id };
      return token;
    }
    if (!isPlainContainer(value)) return value;
    if (Array.isArray(value)) return value.map((v) => this.outbound(v));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.outbound(v);
    return out;
  }

  private inbound(value: unknown, transfer: Transferable[]): unknown {
    if (isToken(value)) {
      const { port1, port2 } = new MessageChannel();
      this.attach(value.__parleyPort, port1);
      transfer.push(port2);
      return port2;
    }
    if (!isPlainContainer(value)) return value;
    if (Array.isArray(value)) return value.map((v) => this.inbound(v, transfer));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.inbound(v, transfer);
    return out;
  }
}
