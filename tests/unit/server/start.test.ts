import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionResponse } from '../../../src/protocol/api';
import { runAdmin } from '../../../src/server/admin/cli';
import { lockFilePath, startGateway, type RunningGateway } from '../../../src/server/start';
import { MISSING_CLIENT_NOTE } from '../../../src/server/static';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream';

let dir: string;
let clientDir: string;
let gw: RunningGateway;
let up: FakeUpstream;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'parley-gw-'));
  clientDir = join(dir, 'client');
  mkdirSync(join(clientDir, 'assets'), { recursive: true });
  writeFileSync(join(clientDir, 'index.html'), '<!doctype html><title>Parley</title>');
  writeFileSync(join(clientDir, 'assets', 'index-AbCd1234.js'), 'console.log(1)');
  writeFileSync(join(clientDir, 'sql.wasm'), Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]));
  writeFileSync(join(clientDir, 'favicon.svg'), '<svg/>');
  up = await startFakeUpstream({ steps: [{ content: 'first' }, { delayMs: 400 }, { content: ' second' }] });
  gw = await startGateway({
    port: 0,
    dataDir: join(dir, 'data'),
    clientDir,
    inheritEnv: false,
    env: { PARLEY_UPSTREAM_URL: up.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_OFFLINE_TOKEN_DELAY_MS: '1', PARLEY_RESUME_GRACE_MS: '500' },
    log: () => {},
  });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startGateway: a real server on loopback', () => {
  it('listens on a free port and answers over HTTP with PGlite on disk', async () => {
    expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(gw.db.kind).toBe('pglite');
    expect(existsSync(join(dir, 'data', 'pglite'))).toBe(true);
    const res = await fetch(`${gw.url}/healthz`);
    expect(await res.json()).toEqual({ ok: true });
    expect(gw.catalogue.defaultModel).toBe('fake-model');
  });

  it('runs the PGlite folder in a thread of its own: a long statement leaves the event loop free', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      await gw.db.query('SELECT count(*) FROM generate_series(1, 3000000) AS g WHERE g % 7 = 3');
    } finally {
      clearInterval(timer);
    }
    // On the event loop's thread the statement is one synchronous call (tests/unit/server/pglite-thread.test.ts).
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('streams without buffering: the first delta arrives long before the upstream finishes', async () => {
    // The upstream waits 3 s between its two deltas: a gateway that buffered could not hand over the first before the
    // upstream wrote the second. Checked by what the upstream had written, not by a clock (the machine may be busy).
    up.setScript({ steps: [{ content: 'first' }, { delayMs: 3000 }, { content: ' second' }] });
    const ls = await fetch(`${gw.url}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const res = await fetch(`${gw.url}/api/stream-gpt`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c' }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const upstreamSentByThen = up.requests.at(-1)?.sent;
    expect(new TextDecoder().decode(first.value)).toBe('first');
    expect(upstreamSentByThen).toBe(1);
    let rest = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      rest += new TextDecoder().decode(r.value);
    }
    expect(up.requests.at(-1)?.sent).toBe(2);
    expect(rest.startsWith(' second<metadata>')).toBe(true);
  });

  it('frames thinking and metadata the same way over a real socket; upstream errors are JSON', async () => {
    const ls = await fetch(`${gw.url}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    // Each request its own requestId: a reused one replays the first reply (docs/gateway.md "Request ids").
    let n = 0;
    const post = (): Promise<Response> =>
      fetch(`${gw.url}/api/stream-gpt`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c', requestId: `req-real-000${++n}` }),
      });
    up.setScript({ steps: [{ reasoning: 'hmm' }, { content: 'ok' }], usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe(
      '<think>hmm</think>ok<metadata>{"cost":0,"inputTokens":7,"outputTokens":3,"isPartial":false,"model":"fake-model"}</metadata>',
    );
    up.setScript({ error: { status: 429, body: { error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' } } } });
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: 'rate_limit_exceeded', message: 'Slow down' });
    up.setScript({ steps: [{ content: 'first' }, { delayMs: 400 }, { content: ' second' }] });
  });

  async function openReply(requestId: string): Promise<{ cookie: string; ac: AbortController; reader: ReadableStreamDefaultReader<Uint8Array> }> {
    const ls = await fetch(`${gw.url}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const ac = new AbortController();
    const res = await fetch(`${gw.url}/api/stream-gpt`, {
      method: 'POST',
      signal: ac.signal,
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c', requestId }),
    });
    return { cookie, ac, reader: (res.body as ReadableStream<Uint8Array>).getReader() };
  }
  const post = (cookie: string, path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('a client that disconnects leaves the upstream running for the resume grace period, then it is abandoned', async () => {
    up.requests.length = 0;
    up.setScript({ steps: [{ content: 'first' }, { delayMs: 3000 }, { content: 'late' }] });
    const { cookie, ac, reader } = await openReply('req-grace-0001');
    await reader.read();
    ac.abort();
    const t0 = Date.now();
    await up.settled(1);
    // Grace is 500 ms here (PARLEY_RESUME_GRACE_MS); nobody resumed, so the upstream was aborted after it.
    // (Not aborted, the upstream would have run its 3 s to the end: `aborted` is what shows it was abandoned.)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    expect(up.requests[0]?.aborted).toBe(true);
    // A resume now gets the text and metadata that say it was cut off, not a whole reply.
    const late = await (await post(cookie, '/api/stream-gpt/resume', { requestId: 'req-grace-0001' })).text();
    expect(late.startsWith('first<metadata>')).toBe(true);
    expect(late).toContain('"isPartial":true');
    expect(late).toContain('cut off');
  });

  it('resume after a lost connection returns the whole reply, then follows it live to the metadata', async () => {
    up.requests.length = 0;
    up.setScript({ steps: [{ content: 'one ' }, { delayMs: 150 }, { content: 'two ' }, { delayMs: 150 }, { content: 'three' }] });
    const { cookie, ac, reader } = await openReply('req-resume-0001');
    await reader.read();
    ac.abort();
    const resumed = await post(cookie, '/api/stream-gpt/resume', { requestId: 'req-resume-0001' });
    expect(resumed.status).toBe(200);
    const text = await resumed.text();
    expect(text.startsWith('one two three<metadata>')).toBe(true);
    expect(up.requests[0]?.aborted).toBe(false);
    // Still resumable for a while after it finished.
    expect(await (await post(cookie, '/api/stream-gpt/resume', { requestId: 'req-resume-0001' })).text()).toBe(text);
  });

  it('resume is per session and answers 404 for an unknown reply; cancel ends the upstream at once', async () => {
    up.requests.length = 0;
    up.setScript({ steps: [{ content: 'first' }, { delayMs: 3000 }, { content: 'late' }] });
    const { cookie, ac, reader } = await openReply('req-cancel-0001');
    await reader.read();
    const other = await fetch(`${gw.url}/auth/local-session`);
    const otherCookie = (other.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const stranger = await post(otherCookie, '/api/stream-gpt/resume', { requestId: 'req-cancel-0001' });
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toMatchObject({ error: 'REPLY_NOT_FOUND' });
    expect((await post(cookie, '/api/stream-gpt/resume', { requestId: 'x' })).status).toBe(400);

    const cancelled = await post(cookie, '/api/stream-gpt/cancel', { requestId: 'req-cancel-0001' });
    expect(await cancelled.json()).toEqual({ ok: true, found: true });
    // The client is still connected, so no resume grace is involved: only the cancel can end the upstream (left
    // alone it would run its 3 s to the end, not aborted). No timing is asserted, which a busy machine would break.
    await up.settled(1);
    expect(up.requests[0]?.aborted).toBe(true);
    ac.abort();
  });

  it('serves the client: SPA routes get index.html, hashed assets are immutable, wasm is application/wasm', async () => {
    for (const path of ['/', '/conversation/new', '/conversation/some-slug-abc1234', '/wallet']) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<title>Parley</title>');
    }
    const js = await fetch(`${gw.url}/assets/index-AbCd1234.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const wasm = await fetch(`${gw.url}/sql.wasm`);
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    expect(new Uint8Array(await wasm.arrayBuffer())).toEqual(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    const svg = await fetch(`${gw.url}/favicon.svg`);
    expect(svg.headers.get('cache-control')).toBe('no-cache');
    const etag = svg.headers.get('etag') ?? '';
    const again = await fetch(`${gw.url}/favicon.svg`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await fetch(`${gw.url}/missing.png`)).status).toBe(404);
    expect((await fetch(`${gw.url}/api/models`)).status).toBe(401); // API is not shadowed by the SPA
  });

  it('never serves files outside the client folder', async () => {
    writeFileSync(join(dir, 'secret.txt'), 'secret');
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt']) {
      const r = await rawGet(gw.url, path);
      expect(r.body, path).not.toContain('secret');
    }
  });

  it('writes a lock with an admin token; `npm run admin` goes through the running gateway', async () => {
    const lock = JSON.parse(readFileSync(lockFilePath(join(dir, 'data')), 'utf8')) as { pid: number; url: string };
    expect(lock.pid).toBe(process.pid);
    expect(lock.url).toBe(gw.url);
    const ls = await fetch(`${gw.url}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const id = ((await ls.json()) as LocalSessionResponse).data.id;
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(['credit', id, '3.5'], { out: (l) => out.push(l), err: (l) => err.push(l), env: { PARLEY_DATA_DIR: join(dir, 'data') } });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('New balance: 3.500000 USD');
    const after = (await (await fetch(`${gw.url}/auth/local-session`, { headers: { cookie } })).json()) as LocalSessionResponse;
    expect(after.data.usd_balance).toBe('3.500000');
    // The admin routes need the token.
    const forged = await fetch(`${gw.url}/admin/credit`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    expect(forged.status).toBe(403);
  });

  it('refuses a second gateway on the same data folder', async () => {
    await expect(startGateway({ port: 0, dataDir: join(dir, 'data'), inheritEnv: false, log: () => {} })).rejects.toThrow(/Another gateway/);
  });

  it('without a client build, app routes get a short plain-text note; close() removes the lock', async () => {
    const other = await startGateway({ port: 0, memory: true, clientDir: join(dir, 'nope'), inheritEnv: false, log: () => {} });
    try {
      const res = await fetch(`${other.url}/conversation/new`);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe(MISSING_CLIENT_NOTE);
    } finally {
      await other.close();
    }
    const tmp = join(dir, 'data2');
    const g2 = await startGateway({ port: 0, dataDir: tmp, clientDir: null, inheritEnv: false, log: () => {} });
    expect(existsSync(lockFilePath(tmp))).toBe(true);
    await g2.close();
    expect(existsSync(lockFilePath(tmp))).toBe(false);
  });
});
