/**
 * Helpers of the web tests: a gateway app with web deps, a canary that counts every connection it gets, and a
 * loopback test host serving scripted pages.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/server/app';
import type { Env } from '../../../src/server/env-vars';
import { loadConfig } from '../../../src/server/config';
import { openDatabase } from '../../../src/server/db/open';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { loadParseConfig } from '../../../src/server/parse/config';
import type { WebDeps } from '../../../src/server/web/register';
import { newSession } from '../server/helpers';

export async function webGateway(web: WebDeps, env: Env = {}) {
  const db = await openDatabase({ kind: 'memory' });
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', ...env });
  const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, discoveryTimeoutMs: 1000, log: () => undefined });
  const ledger = new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
  const logs: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  const app = createApp({ db, catalogue, ledger, settings: { guards: config.guards }, log: (l) => logs.push(l), web, parse: loadParseConfig(env), onClose: (fn) => closers.push(fn) });
  const session = await newSession(app);
  const post = (path: string, body: unknown) =>
    app.request(path, { method: 'POST', headers: { cookie: session.cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const get = (path: string) => app.request(path, { headers: { cookie: session.cookie } });
  const credit = (usdMicro: bigint) => ledger.credit(session.data.id, { key: `seed:${session.data.id}:${usdMicro}`, usdMicro });
  const balance = () => ledger.balance(session.data.id);
  const close = async (): Promise<void> => {
    await Promise.all(closers.map((fn) => fn()));
    await db.close();
  };
  return { app, db, ledger, session, post, get, credit, balance, logs, close };
}

/** A TCP listener on loopback (IPv4 and IPv6) that counts connections and answers nothing useful. */
export async function startCanary(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    count++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 6\r\n\r\nCANARY');
  });
  await new Promise<void>((r) => server.listen({ port: 0, host: '::', ipv6Only: false }, () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    connections: () => count,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A loopback HTTP server with routes by path; counts requests per path. */
export async function startTestHost(routes: Record<string, Route>, address = '127.0.0.1'): Promise<{ port: number; url: string; hits: Map<string, number>; hosts: string[]; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const hosts: string[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    hosts.push(req.headers.host ?? '');
    const route = routes[path];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    route(req, res);
  });
  await new Promise<void>((r) => server.listen(0, address, () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${address}:${port}`,
    hits,
    hosts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const html = (body: string, title = 'A page') => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
};
