/**
 * Issue 5 item 9: two gateway processes on one PostgreSQL, behind a proxy that sends each request to the other
 * one in turn (as a round-robin load balancer without sticky sessions would). A reply started through one
 * process is resumed, retried and stopped through the other (src/server/routes/reply-store.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_OPEN, type StreamMetadata } from '../../../src/protocol/stream';
import { CUT_OFF_MESSAGE } from '../../../src/server/routes/stream-gpt';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';
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
    const env = { PARLEY_UPSTREAM_URL: up.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_RESUME_GRACE_MS: '1500' };
    [a, b] = await Promise.all([startGatewayProcess(url, env), startGatewayProcess(url, env)]);
    proxy = await startProxy([a.url, b.url]);
    sql = postgres(url, { max: 1, onnotice: () => {} });
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    proxy?.server.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await up?.close();
    await pg?.stop();
  }, 60_000);

  async function session(): Promise<string> {
    const res = await fetch(`${proxy.url}/auth/local-session`);
    await res.arrayBuffer();
    return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
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

  it('Stop through the other gateway ends the upstream within about a second', async () => {
    up.requests.length = 0;
    up.setScript({ steps: [{ content: 'start' }, { delayMs: 10_000 }, { content: ' never' }] });
    const cookie = await session();
    const res = await post(cookie, '/api/stream-gpt', chat('req-two-cancel-01'));
    const { first, reader } = await readFirst(res);
    expect(first).toBe('start');
    const t0 = performance.now();
    const cancelled = await post(cookie, '/api/stream-gpt/cancel', { requestId: 'req-two-cancel-01' });
    expect(cancelled.headers.get('x-backend')).not.toBe(res.headers.get('x-backend'));
    expect(await cancelled.json()).toEqual({ ok: true, found: true });
    const { text, meta } = splitMeta(first + (await readRest(reader)));
    expect(performance.now() - t0).toBeLessThan(2000);
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
  }, 30_000);
});
