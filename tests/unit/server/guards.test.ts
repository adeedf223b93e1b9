/**
 * Issue 5, items 6 and 7 through the app on PGlite: per-address rate limits kept in the database (429 with
 * Retry-After, shared by two app instances on one database, the trusted proxy header), and the refusal of
 * cross-site requests (a text/plain POST spends nothing, a foreign Origin or Sec-Fetch-Site is refused).
 * Client addresses are given as the socket binding @hono/node-server sets (`incoming`), as a real server would.
 */
import type { IncomingMessage } from 'node:http';
import type { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp, SMALL_BODY_BYTES } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { type Env } from '../../../src/server/env-vars';
import type { AppEnv } from '../../../src/server/http';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { LEASE_MS, LeasedBuckets, takeToken } from '../../../src/server/guards/rate-limit';
import type { Queryable } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { chatBody, errorBody, getSession, newSession } from './helpers';

let db: Db;
let up: FakeUpstream;

beforeAll(async () => {
  db = await openDatabase({ kind: 'memory' });
  up = await startFakeUpstream(textReply('paid words', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
});
afterAll(async () => {
  await up.close();
  await db.close();
});
beforeEach(async () => {
  await db.query('DELETE FROM rate_limits');
  up.requests.length = 0;
});

async function app(env: Env = {}): Promise<Hono<AppEnv>> {
  const config = loadConfig({
    PARLEY_OFFLINE_TOKEN_DELAY_MS: '0',
    PARLEY_PROVIDERS: JSON.stringify([{ name: 'fake', url: up.url, models: ['paid-model'], pricing: { 'paid-model': { input: '1.5', output: '3' } } }]),
    ...env,
  });
  const catalogue = await Catalogue.create(config.upstreams, { offlineTokenDelayMs: 0, discoveryTimeoutMs: config.discoveryTimeoutMs, log: () => {} });
  return createApp({
    db,
    catalogue,
    ledger: new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro }),
    settings: { stallMs: config.stallMs, cookieSecure: false, maxBodyBytes: config.maxBodyBytes, guards: config.guards },
    log: () => {},
  });
}

/** The bindings a real server passes: a socket with this remote address. */
function from(address: string): AppEnv['Bindings'] {
  return { incoming: { socket: { remoteAddress: address } } as unknown as IncomingMessage };
}

describe('rate limits', () => {
  it('a session flood from one address gets 429 with Retry-After; other addresses and kept cookies go on', async () => {
    const a = await app({ PARLEY_SESSION_RATE_BURST: '5', PARLEY_SESSION_RATE_PER_MIN: '6' });
    const statuses: number[] = [];
    let kept = '';
    for (let i = 0; i < 8; i++) {
      const res = await a.request('/auth/local-session', {}, from('198.51.100.7'));
      statuses.push(res.status);
      if (i === 0) kept = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toBe('10'); // 6 per minute: one token every 10 s
        const body = await errorBody(res);
        expect(body.error).toBe('RATE_LIMITED');
        expect(body.message).toMatch(/Too many new sessions/);
        expect(res.headers.get('set-cookie')).toBeNull();
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // IPv4-mapped IPv6 is the same address.
    expect((await a.request('/auth/local-session', {}, from('::ffff:198.51.100.7'))).status).toBe(429);
    expect((await a.request('/auth/local-session', {}, from('198.51.100.8'))).status).toBe(200);
    // A client that keeps its cookie is not creating sessions.
    expect((await a.request('/auth/local-session', { headers: { cookie: kept } }, from('198.51.100.7'))).status).toBe(200);
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions');
    expect(count[0]?.n).toBeGreaterThanOrEqual(6);
  });

  it('two app instances on one database share the bucket', async () => {
    const env = { PARLEY_SESSION_RATE_BURST: '6', PARLEY_SESSION_RATE_PER_MIN: '1' };
    const one = await app(env);
    const two = await app(env);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => Promise.resolve((i % 2 === 0 ? one : two).request('/auth/local-session', {}, from('192.0.2.44'))).then((r) => r.status)),
    );
    expect(results.filter((s) => s === 200)).toHaveLength(6);
    expect(results.filter((s) => s === 429)).toHaveLength(6);
  });

  it('the bucket refills from timestamps', async () => {
    const limit = { burst: 2, perMinute: 60 }; // one token a second
    expect((await takeToken(db, 't:refill', limit)).allowed).toBe(true);
    expect((await takeToken(db, 't:refill', limit)).allowed).toBe(true);
    const refused = await takeToken(db, 't:refill', limit);
    expect(refused).toEqual({ allowed: false, retryAfterS: 1 });
    // As if 1.5 s had passed since the last check.
    await db.query(`UPDATE rate_limits SET updated_at = updated_at - interval '1500 milliseconds' WHERE bucket_key = 't:refill'`);
    expect((await takeToken(db, 't:refill', limit)).allowed).toBe(true);
    expect((await takeToken(db, 't:refill', limit)).allowed).toBe(false);
  });

  it('costly routes are limited per address; the proxy header counts only when configured, right-most entry', async () => {
    const env = { PARLEY_COSTLY_RATE_BURST: '2', PARLEY_COSTLY_RATE_PER_MIN: '1', PARLEY_SESSION_RATE_BURST: '100' };
    const direct = await app(env);
    const s = await newSession(direct);
    const post = (a: Hono<AppEnv>, addr: string, headers: Record<string, string> = {}) =>
      a.request(
        '/api/stream-gpt',
        { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify(chatBody('parley-offline', 'hi')) },
        from(addr),
      );
    expect((await post(direct, '10.0.0.1')).status).toBe(200);
    // Without a trusted proxy, a client-set X-Forwarded-For changes nothing.
    expect((await post(direct, '10.0.0.1', { 'x-forwarded-for': '1.2.3.4' })).status).toBe(200);
    const third = await post(direct, '10.0.0.1', { 'x-forwarded-for': '5.6.7.8' });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBe(60);

    const proxied = await app({ ...env, PARLEY_TRUSTED_PROXY_HEADER: 'X-Forwarded-For' });
    // The proxy (10.0.0.1, whose bucket is empty) appends the client's address: the client's own entries are ignored.
    for (let i = 0; i < 2; i++) expect((await post(proxied, '10.0.0.1', { 'x-forwarded-for': `9.9.9.${i}, 203.0.113.5` })).status).toBe(200);
    expect((await post(proxied, '10.0.0.1', { 'x-forwarded-for': '203.0.113.5' })).status).toBe(429);
    expect((await post(proxied, '10.0.0.1', { 'x-forwarded-for': '203.0.113.5, 203.0.113.6' })).status).toBe(200);
  });
});

describe('rate-limit leases (tokens taken in blocks per process)', () => {
  /** The database, counting the statements that take tokens. */
  function counting(): { q: Queryable; takes: () => number } {
    let n = 0;
    return {
      q: {
        query: (sql, params) => {
          if (sql.startsWith('INSERT INTO rate_limits')) n++;
          return db.query(sql, params);
        },
      },
      takes: () => n,
    };
  }
  const tokensLeft = async (key: string): Promise<number> =>
    Number((await db.query<{ tokens: number }>('SELECT tokens FROM rate_limits WHERE bucket_key = $1', [key]))[0]?.tokens);

  it('a busy address costs far fewer statements than requests; two processes together pass exactly the burst', async () => {
    const c = counting();
    const limit = { burst: 200, perMinute: 1 };
    const [one, two] = [new LeasedBuckets(c.q, limit), new LeasedBuckets(c.q, limit)];
    let allowed = 0;
    for (let round = 0; round < 6; round++) {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? one : two).take('costly:203.0.113.9')));
      allowed += results.filter((r) => r.allowed).length;
    }
    expect(allowed).toBe(200);
    expect(c.takes()).toBeLessThan(40);
    // Refusals are answered from memory until the next token is due: a flood costs no statement.
    const before = c.takes();
    const refused = await Promise.all(Array.from({ length: 200 }, () => one.take('costly:203.0.113.9')));
    expect(refused.every((r) => !r.allowed && r.retryAfterS >= 1)).toBe(true);
    expect(c.takes() - before).toBe(0);
    await Promise.all([one.close(), two.close()]);
  });

  it('one after another, requests are served from a lease; spare tokens go back to the bucket when unused', async () => {
    const c = counting();
    const buckets = new LeasedBuckets(c.q, { burst: 1000, perMinute: 1 });
    for (let i = 0; i < 200; i++) expect((await buckets.take('costly:198.51.100.77')).allowed).toBe(true);
    expect(c.takes()).toBeLessThan(50);
    expect(await tokensLeft('costly:198.51.100.77')).toBeLessThan(800); // some are leased, not used yet
    await buckets.sweep(Date.now() + LEASE_MS + 1);
    expect(Math.floor(await tokensLeft('costly:198.51.100.77'))).toBe(800);
  });

  it('a bucket near empty is shared token by token (no spare leased), so no process starves another', async () => {
    const c = counting();
    const limit = { burst: 10, perMinute: 1 };
    const [one, two] = [new LeasedBuckets(c.q, limit), new LeasedBuckets(c.q, limit)];
    for (let i = 0; i < 6; i++) expect((await one.take('sessions:192.0.2.99')).allowed).toBe(true);
    // Four left, all for the other process if it asks first: none sit in the first one's lease.
    for (let i = 0; i < 4; i++) expect((await two.take('sessions:192.0.2.99')).allowed).toBe(true);
    expect((await two.take('sessions:192.0.2.99')).allowed).toBe(false);
    expect((await one.take('sessions:192.0.2.99')).allowed).toBe(false);
  });
});

describe('cross-site requests', () => {
  async function fundedSession(a: Hono<AppEnv>): Promise<{ cookie: string; id: string }> {
    const s = await newSession(a);
    await new Ledger(db, { nanoPriceUsdMicro: 1_000_000n }).credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
    return { cookie: s.cookie, id: s.data.id };
  }

  it('a text/plain POST (a form or no-cors fetch from a sibling site) is refused with 415 and spends nothing', async () => {
    const a = await app();
    const s = await fundedSession(a);
    const body = JSON.stringify(chatBody('paid-model', 'spend it', { requestId: 'req-csrf-0001' }));
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const headers: Record<string, string> = { cookie: s.cookie };
      if (type !== undefined) headers['content-type'] = type;
      const res = await a.request('/api/stream-gpt', { method: 'POST', headers, body });
      expect(res.status, String(type)).toBe(415);
      const err = await errorBody(res);
      expect(err.error).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(err.message).toBe('The request body must be JSON, sent with Content-Type: application/json');
    }
    expect(up.requests).toHaveLength(0);
    expect((await getSession(a, s.cookie)).usd_balance).toBe('1.000000');
    const entries = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [s.id]);
    expect(entries[0]?.n).toBe(0);
  });

  it('a foreign Origin or a cross-site Sec-Fetch-Site is refused with 403; the own origin and allowed origins pass', async () => {
    const a = await app({ PARLEY_ALLOWED_ORIGINS: 'http://localhost:5173' });
    const s = await fundedSession(a);
    const send = (headers: Record<string, string>) =>
      a.request('http://parley.example:8787/api/stream-gpt', {
        method: 'POST',
        headers: { cookie: s.cookie, 'content-type': 'application/json', host: 'parley.example:8787', ...headers },
        body: JSON.stringify(chatBody('parley-offline', 'hi')),
      });
    const refused: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'http://sub.parley.example:8787' },
      { origin: 'http://parley.example:9999' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://parley.example:8787' },
    ];
    for (const headers of refused) {
      const res = await send(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      const err = await errorBody(res);
      expect(err.error).toBe('CROSS_SITE');
      expect(err.message).toMatch(/^Refused: /);
    }
    expect((await errorBody(await send({ origin: 'http://evil.example' }))).message).toBe("Refused: requests from the origin 'http://evil.example' are not allowed");
    const passing: Record<string, string>[] = [{ origin: 'http://parley.example:8787', 'sec-fetch-site': 'same-origin' }, { origin: 'http://localhost:5173' }, {}];
    for (const headers of passing) {
      const res = await send(headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      await res.text();
    }
    expect(up.requests).toHaveLength(0);
    expect((await getSession(a, s.cookie)).usd_balance).toBe('1.000000');
  });

  it('the own origin is scheme, host and port: an http:// page on an https:// gateway\'s host is refused; PARLEY_PUBLIC_URL passes', async () => {
    const a = await app({ PARLEY_PUBLIC_URL: 'https://chat.parley.example/' });
    const s = await fundedSession(a);
    const send = (url: string, host: string, origin: string) =>
      a.request(url, {
        method: 'POST',
        headers: { cookie: s.cookie, 'content-type': 'application/json', host, origin },
        body: JSON.stringify(chatBody('parley-offline', 'hi')),
      });
    // No Sec-Fetch-Site (an older browser, or a page that strips it): only the Origin decides.
    const refused: [string, string, string][] = [
      ['https://parley.example/api/stream-gpt', 'parley.example', 'http://parley.example'],
      ['http://parley.example:8787/api/stream-gpt', 'parley.example:8787', 'https://parley.example:8787'],
      ['http://parley.example:8787/api/stream-gpt', 'parley.example:8787', 'http://chat.parley.example'],
    ];
    for (const [url, host, origin] of refused) {
      const res = await send(url, host, origin);
      expect(res.status, `${origin} -> ${url}`).toBe(403);
      expect((await errorBody(res)).message).toBe(`Refused: requests from the origin '${origin}' are not allowed`);
    }
    const passing: [string, string, string][] = [
      ['https://parley.example/api/stream-gpt', 'parley.example', 'https://parley.example'],
      ['http://Parley.example:8787/api/stream-gpt', 'Parley.example:8787', 'http://parley.example:8787'],
      // Behind a proxy that ends TLS: the request arrives as http://, the page is the public https:// origin.
      ['http://10.0.0.5:8787/api/stream-gpt', '10.0.0.5:8787', 'https://chat.parley.example'],
    ];
    for (const [url, host, origin] of passing) {
      const res = await send(url, host, origin);
      expect(res.status, `${origin} -> ${url}`).toBe(200);
      await res.text();
    }
    expect(up.requests).toHaveLength(0);
  });

  it('small JSON routes refuse bodies over 256 KiB; the reply routes take large ones', async () => {
    const a = await app();
    const s = await newSession(a);
    const big = JSON.stringify({ requestId: 'req-big-00001', pad: 'x'.repeat(300 * 1024) });
    for (const path of ['/api/stream-gpt/resume', '/api/stream-gpt/cancel', '/api/conversation-summary']) {
      const res = await a.request(path, { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json', 'content-length': String(big.length) }, body: big });
      expect(res.status, path).toBe(413);
      expect((await errorBody(res)).message).toBe(`The request body is larger than ${SMALL_BODY_BYTES} bytes`);
    }
    const prompt = JSON.stringify(chatBody('parley-offline', 'y'.repeat(300 * 1024)));
    const reply = await a.request('/api/stream-gpt', { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json', 'content-length': String(prompt.length) }, body: prompt });
    expect(reply.status).toBe(200);
    await reply.text();
  });

  it('GET stays open (navigation, the session call); the admin routes are guarded too', async () => {
    const a = await app();
    expect((await a.request('/auth/local-session', { headers: { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' } })).status).toBe(200);
    const admin = createApp({ db, catalogue: await Catalogue.create([], { offlineTokenDelayMs: 0, discoveryTimeoutMs: 1000, log: () => {} }), adminToken: 'tok', log: () => {} });
    const res = await admin.request('/admin/credit', { method: 'POST', headers: { authorization: 'Bearer tok' }, body: '{}' });
    expect(res.status).toBe(415);
  });
});
