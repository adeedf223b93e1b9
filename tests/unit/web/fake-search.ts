/**
 * A fake search server on loopback speaking three providers' APIs: SearXNG (GET /search?format=json), Linkup
 * (POST /v1/search, bearer key) and Brave (GET /res/v1/web/search, X-Subscription-Token). Its results are set by
 * the test; it records every query. Used by the unit tests and the browser tests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeResult {
  title: string;
  url: string;
  content: string;
}

export interface FakeSearch {
  url: string;
  queries: { api: 'searxng' | 'linkup' | 'brave'; q: string; depth?: string; auth?: string }[];
  setResults(results: FakeResult[]): void;
  /** Answer this HTTP status instead of results (0 = normal). */
  failWith(status: number): void;
  close(): Promise<void>;
}

export const KEY = 'test-search-key';

export async function startFakeSearch(initial: FakeResult[] = []): Promise<FakeSearch> {
  let results = initial;
  let failStatus = 0;
  const queries: FakeSearch['queries'] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const send = (body: unknown) => {
      if (failStatus) return void res.writeHead(failStatus, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method === 'GET' && u.pathname === '/search' && u.searchParams.get('format') === 'json') {
      queries.push({ api: 'searxng', q: u.searchParams.get('q') ?? '' });
      return send({ query: u.searchParams.get('q'), results: results.map((r) => ({ ...r, engine: 'fake' })) });
    }
    if (req.method === 'GET' && u.pathname === '/res/v1/web/search') {
      queries.push({ api: 'brave', q: u.searchParams.get('q') ?? '', auth: String(req.headers['x-subscription-token'] ?? '') });
      if (req.headers['x-subscription-token'] !== KEY) return void res.writeHead(401).end();
      return send({ web: { results: results.map((r) => ({ title: r.title, url: r.url, description: r.content })) } });
    }
    if (req.method === 'POST' && u.pathname === '/v1/search') {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as { q: string; depth: string };
        queries.push({ api: 'linkup', q: body.q, depth: body.depth, auth: String(req.headers.authorization ?? '') });
        if (req.headers.authorization !== `Bearer ${KEY}`) return void res.writeHead(401).end();
        send({ results: results.map((r) => ({ type: 'text', name: r.title, url: r.url, content: r.content })) });
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    setResults: (r) => (results = r),
    failWith: (s) => (failStatus = s),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
