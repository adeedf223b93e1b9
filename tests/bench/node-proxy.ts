/**
 * A bare Node streaming proxy, for the benchmarks of the gateway (relay, gateway-load): node:http in and out, a
 * keep-alive agent to the upstream, the upstream's bytes passed on as they come and nothing parsed. What any relay
 * written for Node costs before it does any work of its own: the floor the gateway is measured against, beside nginx.
 * Every POST goes to the upstream's `/chat/completions`.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NodeProxy {
  url: string;
  close(): Promise<void>;
}

export async function startNodeProxy(upstreamUrl: string): Promise<NodeProxy> {
  const up = new URL(`${upstreamUrl.replace(/\/$/, '')}/chat/completions`);
  const upstreamAgent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = request(
        { host: up.hostname, port: up.port, path: up.pathname, method: 'POST', agent: upstreamAgent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, { 'content-type': upRes.headers['content-type'] ?? 'text/event-stream' });
          upRes.on('data', (d: Buffer) => res.write(d));
          upRes.on('end', () => res.end());
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        upstreamAgent.destroy();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
