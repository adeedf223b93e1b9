/**
 * Issue 5 item 9: two gateway processes on one PostgreSQL, behind a proxy that sends each request to the other
 * one in turn (as a round-robin load balancer without sticky sessions would). A reply started through one
 * process is resumed, retried and stopped through the other (src/server/chat/reply-store.ts). Paid replies and
 * their holds go through both processes at once, and the rate limits are one budget across them.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_OPEN, type StreamMetadata } from '../../../src/protocol/stream';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { CUT_OFF_MESSAGE } from '../../../src/server/chat/stream-gpt';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';
import { expectLedgerBalanced } from './money-checks';
import { startTempPostgres, type TempPostgres } from './pg-server';

/** A round-robin proxy: request n goes to backend n mod 2; the answer says which one in x-backend. */
function startProxy(backends: string[]): Promise<{ url: string; server: Server }> {
  let n = 0;
  const server = createServer((req, res) => {
    const i = n++ % backends.length;
    const target = new URL(backends[i] as string);
    const out = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (back) => {
        res.writeHead(back.statusCode ?? 502, { ...back.headers, 'x-backend': String(i) });
        back.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    // The client went away mid-reply: so does the proxy's connection to the backend.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

function splitMeta(raw: string): { text: string; meta: StreamMetadata } {
  const at = raw.lastIndexOf(METADATA_OPEN);
  if (at === -1) throw new Error(`no metadata in: ${raw.slice(-200)}`);
  return { text: raw.slice(0, at), meta: JSON.parse(raw.slice(at + METADATA_OPEN.length, raw.lastIndexOf('</metadata>'))) as StreamMetadata };
}

describe('two gateway processes on one PostgreSQL', () => {
  let pg: TempPostgres;
  let url: string;
  let up: FakeUpstream;
  let a: GatewayProcess;
  let b: GatewayProcess;
  let proxy: { url: string; server: Server };
  let sql: ReturnType<typeof postgres>;
  let db: Db;
  let ledger: Ledger;

  beforeAll(async () => {
    pg = await startTempPostgres();
    const dbName = `parley_two_${randomBytes(4).toString('hex')}`;
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(pg.url);
    u.pathname = `/${dbName}`;
    url = u.toString();
    up = await startFakeUpstream({ steps: [{ content: 'x' }] });
    const env = {
      PARLEY_UPSTREAM_URL: up.url,
      PARLEY_UPSTREAM_MODELS: 'fake-model,paid-model',
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'paid-model': { input: '1.5', output: '3' } }),
      PARLEY_RESUME_GRACE_MS: '1500',
      // The proxy passes the client's X-Forwarded-For through: each test limits its own address.
      PARLEY_TRUSTED_PROXY_HEADER: 'X-Forwarded-For',
    };
    [a, b] = await Promise.all([startGatewayProcess(url, env), startGatewayProcess(url, env)]);
    proxy = await startProxy([a.url, b.url]);
    sql = postgres(url, { max: 1, onnotice: () => {} });
    db = await openDatabase({ kind: 'postgres', url });
    ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await sql?.end();
    proxy?.server.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await up?.close();
    await pg?.stop();
  });

  async function session(): Promise<string> {
    return (await sessionFrom()).cookie;
  }
  async function sessionFrom(address?: string): Promise<{ cookie: string; id: string | null; status: number; backend: string | null }> {
    const res = await fetch(`${proxy.url}/auth/local-session`, address === undefined ? {} : { headers: { 'x-forwarded-for': address } });
    const body = res.status === 200 ? ((await res.json()) as { data: { id: string } }) : (await res.arrayBuffer(), null);
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '', id: body?.data.id ?? null, status: res.status, backend: res.headers.get('x-backend') };
  }
  const post = (cookie: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> =>
    fetch(`${proxy.url}${path}`, { method: 'POST', signal, headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const chat = (requestId: string) => ({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c', requestId });
  async function readFirst(res: Response): Promise<{ first: string; reader: ReadableStreamDefaultReader<Uint8Array> }> {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const r = await reader.read();
    return { first: new TextDecoder().decode(r.value), reader };
  }
  async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
    const d = new TextDecoder();
    let text = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) return text + d.decode();
      text += d.decode(r.value, { stream: true });
    }
  }

  it('a reply started through one gateway, its client gone, is resumed whole through the other, and charged once', async () => {
    up.setScript({
      steps: [{ content: 'first' }, { delayMs: 700 }, { content: ' second' }, { delayMs: 700 }, { content: ' third' }, { delayMs: 700 }, { content: '.' }],
      usage: { prompt_tokens: 4, completion_tokens: 4 },
    });
    const cookie = await session();
    const ac = new AbortController();
    const started = await post(cookie, '/api/stream-gpt', chat('req-two-resume-01'), ac.signal);
    expect(started.status).toBe(200);
    const { first, reader } = await readFirst(started);
    expect(first).toBe('first');
    ac.abort();
    await reader.cancel().catch(() => {});
    // The grace period is 1.5 s and the reply lasts 2.1 s more: the owner must see the follower on the other process.
    const resumed = await post(cookie, '/api/stream-gpt/resume', { requestId: 'req-two-resume-01' });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('x-backend')).not.toBe(started.headers.get('x-backend'));
    const { text, meta } = splitMeta(await resumed.text());
    expect(text).toBe('first second third.');
    expect(meta).toMatchObject({ isPartial: false, inputTokens: 4, outputTokens: 4, model: 'fake-model' });
    expect(meta.error).toBeUndefined();
    // Once more through the first gateway (finished now): the same text, from the table or its memory.
    const again = await post(cookie, '/api/stream-gpt/resume', { requestId: 'req-two-resume-01' });
    expect(again.headers.get('x-backend')).toBe(started.headers.get('x-backend'));
    expect(splitMeta(await again.text()).text).toBe('first second third.');
    // A free reply's $0 entry is written behind (within 100 ms): one entry, never two.
    const entries = async (): Promise<number> =>
      Number(
        (await sql.unsafe(
          `SELECT count(*)::int AS n FROM ledger_entries e JOIN sessions s ON s.id = e.session_id
           WHERE e.kind = 'charge' AND e.idempotency_key LIKE '%req-two-resume-01%'`,
        ))[0]?.n,
      );
    for (let i = 0; i < 40 && (await entries()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await entries()).toBe(1);
    expect(up.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBeGreaterThanOrEqual(1);
  });

  it('a true retry of a requestId through the other gateway gets the same reply, not a second generation', async () => {
    up.requests.length = 0;
    up.setScript({ steps: [{ content: 'only' }, { delayMs: 500 }, { content: ' once' }] });
    const cookie = await session();
    const firstRes = await post(cookie, '/api/stream-gpt', chat('req-two-retry-001'));
    const { first, reader } = await readFirst(firstRes);
    expect(first).toBe('only');
    const retry = await post(cookie, '/api/stream-gpt', chat('req-two-retry-001'));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-backend')).not.toBe(firstRes.headers.get('x-backend'));
    expect(splitMeta(await retry.text()).text).toBe('only once');
    expect(splitMeta(first + (await readRest(reader))).text).toBe('only once');
    expect(up.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBe(1);
  });

  it('Stop through the other gateway ends the upstream, long before it would have ended', async () => {
    up.requests.length = 0;
    // The upstream would go on after a minute: the reply ends cut off, the upstream aborted, well before that (no clock
    // is asserted: a busy machine is slow, a Stop that did not reach the upstream never ends it).
    up.setScript({ steps: [{ content: 'start' }, { delayMs: 60_000 }, { content: ' never' }] });
    const cookie = await session();
    const res = await post(cookie, '/api/stream-gpt', chat('req-two-cancel-01'));
    const { first, reader } = await readFirst(res);
    expect(first).toBe('start');
    const cancelled = await post(cookie, '/api/stream-gpt/cancel', { requestId: 'req-two-cancel-01' });
    expect(cancelled.headers.get('x-backend')).not.toBe(res.headers.get('x-backend'));
    expect(await cancelled.json()).toEqual({ ok: true, found: true });
    const { text, meta } = splitMeta(first + (await readRest(reader)));
    expect(text).toBe('start');
    expect(meta.error).toBe(CUT_OFF_MESSAGE);
    expect(up.requests[0]?.aborted).toBe(true);
    // Unknown replies are not found through either gateway.
    expect(await (await post(cookie, '/api/stream-gpt/cancel', { requestId: 'req-two-unknown1' })).json()).toEqual({ ok: true, found: false });
    expect((await post(cookie, '/api/stream-gpt/resume', { requestId: 'req-two-unknown1' })).status).toBe(404);
  });

  it('expired rows are swept, chunks with them', async () => {
    await sql.unsafe(`UPDATE inflight_replies SET expires_at = now() - interval '1 second' WHERE state = 'finished'`);
    const before = await sql.unsafe(`SELECT count(*)::int AS n FROM inflight_reply_chunks`);
    expect(before[0]?.n).toBeGreaterThan(0);
    // Each process sweeps every 10 s; wait for one of them.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const rows = await sql.unsafe(`SELECT count(*)::int AS n FROM inflight_replies WHERE state = 'finished'`);
      if (rows[0]?.n === 0) break;
      if (Date.now() > deadline) throw new Error(`finished rows were not swept: ${JSON.stringify(await sql.unsafe(`SELECT reply_key, state, expires_at, now() AS now FROM inflight_replies`))}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const chunks = await sql.unsafe(
      `SELECT count(*)::int AS n FROM inflight_reply_chunks c WHERE NOT EXISTS (SELECT 1 FROM inflight_replies r WHERE r.reply_key = c.reply_key)`,
    );
    expect(chunks[0]?.n).toBe(0);
  });

  it('parallel paid replies through both processes: holds on one balance, never negative, debits = what was delivered', async () => {
    up.requests.length = 0;
    // Each reply: 1000 + 2000 tokens at $1.5 / $3 per million = 7500 micro-dollars; its hold (maxTokens 4000) is
    // 1 x 1.5 + 4000 x 3 = 12002, so a 30000 balance holds two at once and a third must wait or be refused.
    up.setScript({ steps: [{ content: 'paid' }, { delayMs: 400 }, { content: ' words' }], usage: { prompt_tokens: 1000, completion_tokens: 2000 } });
    const rich = await Promise.all([sessionFrom('198.51.100.1'), sessionFrom('198.51.100.2')]);
    const poor = await sessionFrom('198.51.100.3');
    for (const s of rich) await ledger.credit(s.id as string, { key: `seed:${s.id}`, usdMicro: 30_000n });
    const all = [...rich, poor];
    const replies = await Promise.all(
      all.flatMap((s, si) =>
        Array.from({ length: 6 }, async (_, i) => {
          const res = await post(s.cookie, '/api/stream-gpt', { ...chat(`req-two-paid-${si}-${i}`), model: 'paid-model', maxTokens: 4000 });
          const text = await res.text();
          return { session: si, status: res.status, backend: res.headers.get('x-backend'), text };
        }),
      ),
    );
    const delivered = replies.filter((r) => r.status === 200);
    // Both processes took part in the contest for the holds (which one won them depends on which was faster: on a
    // busy machine one process can win all four; both serving paid replies is checked below, one after the other).
    expect(new Set(replies.map((r) => r.backend))).toEqual(new Set(['0', '1']));
    for (const r of delivered) {
      const { text, meta } = splitMeta(r.text);
      expect(text).toBe('paid words');
      expect(meta).toMatchObject({ cost: 0.0075, paymentSource: 'USD', isPartial: false });
      expect(meta.billingError).toBeUndefined();
    }
    for (const r of replies.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(402);
      expect((JSON.parse(r.text) as { error: string }).error).toBe('INSUFFICIENT_BALANCE');
    }
    expect(delivered.filter((r) => r.session === 2)).toEqual([]); // no balance, nothing delivered
    for (const [si, s] of all.entries()) {
      const id = s.id as string;
      const paid = delivered.filter((r) => r.session === si).length;
      const credited = si < 2 ? 30_000n : 0n;
      expect(BigInt(paid) * 7_500n).toBeLessThanOrEqual(credited);
      const balance = (await ledger.balance(id)).usdMicro;
      expect(balance).toBe(credited - BigInt(paid) * 7_500n);
      expect(balance >= 0n).toBe(true);
      const charged = await sql.unsafe(`SELECT coalesce(sum(applied_usd_micro), 0)::text AS t FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [id]);
      expect(BigInt(String(charged[0]?.t))).toBe(BigInt(paid) * 7_500n);
      expect((await ledger.holds(id)).filter((h) => h.status === 'held')).toEqual([]);
      await expectLedgerBalanced(db, id);
    }
    expect(delivered.filter((r) => r.session < 2).length).toBeGreaterThanOrEqual(4); // two at once each, at least
    // Only replies that were paid for reached the upstream.
    expect(up.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBe(delivered.length);
    // Both processes serve paid replies: two in turn go through one process each, and both are charged.
    const another = await sessionFrom('198.51.100.4');
    await ledger.credit(another.id as string, { key: `seed:${another.id}`, usdMicro: 30_000n });
    const inTurn = [];
    for (let i = 0; i < 2; i++) {
      const res = await post(another.cookie, '/api/stream-gpt', { ...chat(`req-two-turn-${i}`), model: 'paid-model', maxTokens: 4000 });
      inTurn.push({ status: res.status, backend: res.headers.get('x-backend'), text: await res.text() });
    }
    expect(inTurn.map((r) => r.status)).toEqual([200, 200]);
    expect(new Set(inTurn.map((r) => r.backend))).toEqual(new Set(['0', '1']));
    for (const r of inTurn) expect(splitMeta(r.text).meta).toMatchObject({ cost: 0.0075, paymentSource: 'USD', isPartial: false });
    expect((await ledger.balance(another.id as string)).usdMicro).toBe(30_000n - 2n * 7_500n);
    await expectLedgerBalanced(db, another.id as string);
  });

  it('rate limits are one budget across the two processes', async () => {
    // PARLEY_SESSION_RATE_BURST is 20 per address: 30 new sessions from one address, alternating between the
    // processes, get 20 (one more if a token came back meanwhile), however they were spread.
    const tries = [];
    for (let i = 0; i < 30; i++) tries.push(await sessionFrom('203.0.113.77'));
    const ok = tries.filter((t) => t.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(20);
    expect(ok.length).toBeLessThanOrEqual(21);
    const limited = tries.filter((t) => t.status === 429);
    expect(limited.length).toBe(30 - ok.length);
    expect(new Set(limited.map((t) => t.backend))).toEqual(new Set(['0', '1']));
    // Another address is not affected.
    expect((await sessionFrom('203.0.113.78')).status).toBe(200);
  });
});
