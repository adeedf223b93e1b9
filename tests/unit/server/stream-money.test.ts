/**
 * Issue 5, items 2 to 4, through the app on PGlite with the fake upstream and priced models: a requestId bound to
 * one request, holds under concurrency, and a slow reader that still pays.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { chatBody, errorBody, getSession, newSession, postStream, readStream, splitStream, testGateway, type TestGateway, type TestSession } from './helpers';
import { expectLedgerBalanced } from './money-checks';
import { RequestBinder } from '../../../src/server/body/request-binding';
import { parallelPaidRequests } from './money-scenarios';

let up: FakeUpstream;
let gw: TestGateway;
/**
 * The same gateway and database with a long stall limit: for every test but the two about the stall limit itself.
 * On a loaded machine the upstream's first chunk can come later than the short limit, and a reply that ends as
 * stalled (UPSTREAM_STALL) is not the reply a test about money or request ids asks for.
 */
let roomy: TestGateway;

// Short enough for the two tests about it, long enough for a first chunk on a loaded machine (stream-gpt.test.ts too).
const STALL_MS = 1_500;
const PRICING = { 'paid-model': { input: '1.5', output: '3' } }; // USD per 1M tokens
const env = (): Record<string, string> => ({
  PARLEY_PROVIDERS: JSON.stringify([{ name: 'fake', url: up.url, models: ['free-model', 'paid-model'], pricing: PRICING }]),
  PARLEY_STALL_MS: String(STALL_MS),
  PARLEY_NANO_USD_PRICE: '1',
});

beforeAll(async () => {
  up = await startFakeUpstream(textReply('unused'));
  gw = await testGateway(env());
  roomy = await gw.rebuild({ ...env(), PARLEY_STALL_MS: '10000' });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});
beforeEach(() => {
  up.requests.length = 0;
});

async function credited(usdMicro: bigint): Promise<TestSession> {
  const s = await newSession(gw.app);
  if (usdMicro > 0n) await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro });
  return s;
}

const USAGE = { prompt_tokens: 1000, completion_tokens: 2000 }; // 1000 x 1.5 + 2000 x 3 = $0.0075

describe('requestId binding', () => {
  it('a requestId first used on the free model cannot buy a paid reply: 409, no upstream call, no charge', async () => {
    up.setScript(textReply('free words', { usage: USAGE }));
    const s = await credited(1_000_000n);
    const first = await readStream(await postStream(roomy.app, s.cookie, chatBody('free-model', 'hi', { requestId: 'req-bind-model-1' })));
    expect(first.meta.cost).toBe(0);
    const res = await postStream(roomy.app, s.cookie, chatBody('paid-model', 'hi', { requestId: 'req-bind-model-1' }));
    expect(res.status).toBe(409);
    const b = await errorBody(res);
    expect(b.error).toBe('REQUEST_ID_REUSED');
    expect(b.message).toMatch(/another model/);
    expect(up.requests).toHaveLength(1);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('1.000000');
  });

  it('a requestId that is not storable text (a lone surrogate, a NUL) is refused with 400 and holds up nothing', async () => {
    up.setScript(textReply('free words', { usage: USAGE }));
    const s = await credited(1_000_000n);
    for (const requestId of ['req-lone-\ud800', 'req-nul-\u0000x', 'req-low-\udc00-x']) {
      const res = await postStream(roomy.app, s.cookie, chatBody('free-model', 'hi', { requestId }));
      expect(res.status).toBe(400);
      expect((await errorBody(res)).message).toMatch(/requestId: must be well-formed text without NUL characters/);
    }
    expect(up.requests).toHaveLength(0);
    // Had one been taken, its row would fail every batch it is in: the next replies' bindings and $0 entries too.
    const ok = await readStream(await postStream(roomy.app, s.cookie, chatBody('free-model', 'hi', { requestId: 'req-after-odd-ones' })));
    expect(ok.meta.cost).toBe(0);
    expect(await new RequestBinder(gw.db).written()).toBe(true);
    await roomy.ledger.freeReplies.flushFor(s.data.id);
    const rows = await gw.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [s.data.id]);
    expect(rows[0]?.n).toBe(1);
    expect(roomy.logs.filter((l) => /failed/.test(l))).toEqual([]);
    // Whole surrogate pairs are well-formed text.
    expect((await postStream(roomy.app, s.cookie, chatBody('free-model', 'hi', { requestId: 'req-emoji-\u{1F600}-ok' }))).status).toBe(200);
  });

  it('a requestId reused with another body is refused with 409, on a paid model too', async () => {
    up.setScript(textReply('paid words', { usage: USAGE }));
    const s = await credited(1_000_000n);
    await readStream(await postStream(roomy.app, s.cookie, chatBody('paid-model', 'first question', { requestId: 'req-bind-body-1' })));
    for (const other of [
      chatBody('paid-model', 'a much longer second question', { requestId: 'req-bind-body-1' }),
      chatBody('paid-model', 'first question', { requestId: 'req-bind-body-1', maxTokens: 999_999 }),
    ]) {
      const res = await postStream(roomy.app, s.cookie, other);
      expect(res.status).toBe(409);
      const b = await errorBody(res);
      expect(b).toMatchObject({ error: 'REQUEST_ID_REUSED' });
      expect(b.message).toMatch(/other messages or settings/);
    }
    expect(up.requests).toHaveLength(1);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.992500');
  });

  it('a true retry while the reply streams gets the same reply; the upstream is asked once, charged once', async () => {
    up.setScript(textReply('one two three four', { usage: USAGE, delayMs: 60 }));
    const s = await credited(1_000_000n);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-retry-live-1' });
    const firstRes = await postStream(roomy.app, s.cookie, body);
    const reader = (firstRes.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the reply is under way
    const retry = await readStream(await postStream(roomy.app, s.cookie, body));
    let rest = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      rest += new TextDecoder().decode(r.value);
    }
    expect(rest).toContain('<metadata>');
    expect(retry.body).toBe('one two three four');
    expect(retry.meta).toMatchObject({ cost: 0.0075, isPartial: false });
    expect(up.requests).toHaveLength(1);
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('0.992500');
    expect(data.numReplies).toBe(1);
  });

  it('parallel requests with one requestId start one upstream generation', async () => {
    up.setScript(textReply('only once', { usage: USAGE, delayMs: 30 }));
    const s = await credited(1_000_000n);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-parallel-01' });
    const all = await Promise.all(Array.from({ length: 8 }, () => postStream(roomy.app, s.cookie, body)));
    for (const res of all) {
      expect(res.status).toBe(200);
      expect((await readStream(res)).body).toBe('only once');
    }
    await up.settled();
    expect(up.requests).toHaveLength(1);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.992500');
  });

  it('a retry once the reply is no longer kept (another gateway process) gets 409, never a second generation', async () => {
    up.setScript(textReply('answered', { usage: USAGE }));
    const s = await credited(1_000_000n);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-answered-1' });
    await readStream(await postStream(gw.app, s.cookie, body));
    const other = await gw.rebuild(env());
    await new Promise((r) => setTimeout(r, STALL_MS + 2100)); // past the window in which the first could still be opening
    const res = await postStream(other.app, s.cookie, body);
    expect(res.status).toBe(409);
    expect(await errorBody(res)).toMatchObject({ error: 'REQUEST_ALREADY_ANSWERED' });
    expect(up.requests).toHaveLength(1);
  });

  it('a key whose hold exists is never generated again, even if its binding was lost', async () => {
    up.setScript(textReply('paid once', { usage: USAGE }));
    const s = await credited(1_000_000n);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-lost-binding' });
    await readStream(await postStream(roomy.app, s.cookie, body));
    // The binding is written behind on PGlite (a binder on the same database writes what waits), then lost.
    expect(await new RequestBinder(gw.db).written()).toBe(true);
    expect(await gw.db.query('DELETE FROM request_bindings WHERE request_id = $1 RETURNING request_id', ['req-lost-binding'])).toHaveLength(1);
    const res = await postStream(roomy.app, s.cookie, body);
    expect(res.status).toBe(409);
    expect(await errorBody(res)).toMatchObject({ error: 'REQUEST_ALREADY_ANSWERED' });
    expect(up.requests).toHaveLength(1);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.992500');
  });

  it('a request refused before its upstream (upstream 429) frees its requestId and its hold', async () => {
    const s = await credited(1_000_000n);
    up.setScript({ error: { status: 429 } });
    const body = chatBody('paid-model', 'hi', { requestId: 'req-refused-1' });
    expect((await postStream(roomy.app, s.cookie, body)).status).toBe(429);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('1.000000');
    up.setScript(textReply('second try', { usage: USAGE }));
    const { body: text, meta } = await readStream(await postStream(roomy.app, s.cookie, body));
    expect(text).toBe('second try');
    expect(meta.cost).toBe(0.0075);
    expect(up.requests).toHaveLength(2);
    await expectLedgerBalanced(gw.db, s.data.id);
  });
});

describe('holds', () => {
  it('$1 and 50 parallel paid requests: no reply unpaid, balance change = sum of charges, never negative', async () => {
    // Each holds 1 x 1.5 + 50,000 x 3 = $0.150002 and costs 1000 x 1.5 + 40,000 x 3 = $0.1215.
    up.setScript(textReply('a paid answer in words', { usage: { prompt_tokens: 1000, completion_tokens: 40_000 }, delayMs: 40 }));
    const s = await credited(1_000_000n);
    const r = await parallelPaidRequests({
      app: roomy.app, db: gw.db, ledger: gw.ledger, up, cookie: s.cookie, sessionId: s.data.id,
      model: 'paid-model', count: 50, maxTokens: 50_000, content: 'hi', tag: 'dollar',
    });
    expect(r.refused).toBeGreaterThan(0);
    expect(r.chargedMicro % 121_500n).toBe(0n);
  });

  it('$0.000011 and 50 parallel slow paid requests: no reply unpaid', async () => {
    // Each holds 1 x 1.5 + 1 x 3 = 5 micro-dollars; a hold needs the balance above 0.00001 first.
    // One token: an upstream that honours max_tokens (one past it would be cut, reply-budget.test.ts).
    up.setScript(textReply('tiny', { usage: { prompt_tokens: 1, completion_tokens: 1 }, delayMs: 100 }));
    const s = await credited(11n);
    const r = await parallelPaidRequests({
      app: roomy.app, db: gw.db, ledger: gw.ledger, up, cookie: s.cookie, sessionId: s.data.id,
      model: 'paid-model', count: 50, maxTokens: 1, content: 'hi', tag: 'tiny',
    });
    expect(r.delivered).toBe(1);
    expect(r.chargedMicro).toBe(5n);
  });

  it('402 says the USD and nano amounts the hold needs; the upstream is told the output budget held', async () => {
    const s = await credited(1_000n);
    const res = await postStream(roomy.app, s.cookie, chatBody('paid-model', 'hello'));
    expect(res.status).toBe(402);
    // 'hello' = 2 tokens x 1.5 + 8192 default output tokens x 3 = 24,579 micro-dollars
    expect(await errorBody(res)).toMatchObject({ error: 'INSUFFICIENT_BALANCE', requiredUsd: '0.024579', requiredBalance: '0.024579' });
    expect(up.requests).toHaveLength(0);
    up.setScript(textReply('ok', { usage: { prompt_tokens: 2, completion_tokens: 1 } }));
    const rich = await credited(1_000_000n);
    await readStream(await postStream(roomy.app, rich.cookie, chatBody('paid-model', 'hello')));
    expect(up.requests[0]?.body?.max_tokens).toBe(8192);
  });
});

describe('slow client', () => {
  it('a reader that pauses longer than the stall limit still gets the whole reply and pays for it', async () => {
    const text = 'x'.repeat(4096 * 64); // 256 KiB: well past the sink's 64 KiB of buffering
    up.setScript(textReply(text, { chunkSize: 4096, usage: USAGE }));
    const s = await credited(1_000_000n);
    // maxTokens: the held output covers the whole text (beyond it the reply would be cut, reply-budget.test.ts).
    const res = await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi', { requestId: 'req-slow-reader', maxTokens: 100_000 }));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let got = decoder.decode((await reader.read()).value, { stream: true });
    await new Promise((r) => setTimeout(r, STALL_MS * 4)); // the client stops reading
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      got += decoder.decode(r.value, { stream: true });
    }
    const { body, meta } = splitStream(got);
    expect(body).toBe(text);
    expect(meta.isStreamStall).toBeUndefined();
    expect(meta.error).toBeUndefined();
    expect(meta.cost).toBe(0.0075);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.992500');
  });
});
