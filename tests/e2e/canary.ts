/**
 * A loopback canary for "nothing leaves the browser": one port of 127.0.0.1 with a UDP socket (STUN, TURN over
 * UDP, QUIC) and a TCP listener that answers HTTP (TURN over TCP, fetch, navigations, preconnect, WebSocket).
 * Everything that reaches it is recorded.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';

export interface Canary {
  port: number;
  /** What arrived, in order: `udp <bytes>`, `tcp connect`, `http <method> <path>`. */
  received: string[];
  /** Resolves once nothing has arrived for `quietMs` (what a closed sender left in flight is in). */
  quiet(quietMs?: number): Promise<void>;
  close(): Promise<void>;
}

function bindUdp(): Promise<Socket> {
  const udp = createSocket('udp4');
  return new Promise((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, '127.0.0.1', () => resolve(udp));
  });
}

function listenTcp(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
}

export async function startCanary(): Promise<Canary> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const received: string[] = [];
    let last = Date.now();
    const note = (what: string) => {
      received.push(what);
      last = Date.now();
    };
    const udp = await bindUdp();
    const port = udp.address().port;
    udp.on('message', (m) => note(`udp ${m.length}`));
    const tcp = createServer((req, res) => {
      note(`http ${req.method ?? ''} ${req.url ?? ''}`);
      res.end('canary');
    });
    tcp.on('connection', () => note('tcp connect'));
    if (!(await listenTcp(tcp, port))) {
      udp.close();
      continue; // the TCP port of that number is taken: another pair
    }
    return {
      port,
      received,
      async quiet(quietMs = 500) {
        while (Date.now() - last < quietMs) await new Promise((r) => setTimeout(r, 50));
      },
      async close() {
        udp.close();
        tcp.closeAllConnections();
        await new Promise<void>((r) => tcp.close(() => r()));
      },
    };
  }
  throw new Error('No free UDP and TCP port pair on 127.0.0.1');
}
