/**
 * Fake BTCPay Server (Greenfield) and Stripe APIs on loopback for the payment tests: they record the requests,
 * answer like the real ones for the calls the gateway makes, and sign webhook bodies the way each provider does.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeProvider {
  url: string;
  requests: { method: string; path: string; body: string; headers: IncomingMessage['headers'] }[];
  /** Provider-side state by reference (invoice or session id). */
  state: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

function listen(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => handler(req, body, res));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startFakeBtcpay(apiKey: string): Promise<FakeProvider> {
  const requests: FakeProvider['requests'] = [];
  const state = new Map<string, Record<string, unknown>>();
  let n = 0;
  const { server, url } = await listen((req, body, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', body, headers: req.headers });
    if (req.headers.authorization !== `token ${apiKey}`) return json(res, 401, { code: 'unauthenticated' });
    const m = /^\/api\/v1\/stores\/([^/]+)\/invoices(?:\/([^/?]+))?$/.exec(req.url ?? '');
    if (!m) return json(res, 404, {});
    if (req.method === 'POST' && !m[2]) {
      const id = `inv${++n}`;
      const invoice = { id, status: 'New', checkoutLink: `${url}/i/${id}`, ...(JSON.parse(body) as Record<string, unknown>) };
      state.set(id, invoice);
      return json(res, 200, invoice);
    }
    const inv = m[2] ? state.get(m[2]) : undefined;
    return inv ? json(res, 200, inv) : json(res, 404, {});
  });
  return { url, requests, state, close: () => new Promise((r) => server.close(() => r())) };
}

export function btcpaySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export async function startFakeStripe(secretKey: string): Promise<FakeProvider> {
  const requests: FakeProvider['requests'] = [];
  const state = new Map<string, Record<string, unknown>>();
  let n = 0;
  const { server, url } = await listen((req, body, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', body, headers: req.headers });
    if (req.headers.authorization !== `Bearer ${secretKey}`) return json(res, 401, { error: { message: 'bad key' } });
    const form = Object.fromEntries(new URLSearchParams(body));
    if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
      const id = `cs_test_${++n}`;
      const s = { id, object: 'checkout.session', url: `${url}/c/pay/${id}`, status: 'open', payment_status: 'unpaid', client_reference_id: form.client_reference_id, metadata: { tx_id: form['metadata[tx_id]'] }, form };
      state.set(id, s);
      return json(res, 200, s);
    }
    if (req.method === 'POST' && req.url === '/v1/payment_intents') {
      const id = `pi_test_${++n}`;
      const pi = { id, object: 'payment_intent', status: 'succeeded', amount: Number(form.amount), customer: form.customer, metadata: { tx_id: form['metadata[tx_id]'] } };
      state.set(id, pi);
      return json(res, 200, pi);
    }
    const m = /^\/v1\/(checkout\/sessions|payment_intents)\/([^/?]+)/.exec(req.url ?? '');
    const found = m?.[2] ? state.get(m[2]) : undefined;
    return found ? json(res, 200, found) : json(res, 404, { error: { message: 'No such object' } });
  });
  return { url, requests, state, close: () => new Promise((r) => server.close(() => r())) };
}

export function stripeSignature(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}
