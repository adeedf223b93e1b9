import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InFlightReply } from '../../../src/server/chat/reply-registry';
import { CLEAR_THINKING_MESSAGE } from '../../../src/protocol/stream';
import { WEB_NOT_RUN_NOTICE } from '../../../src/protocol/web';
import { runAdmin } from '../../../src/server/admin/cli';
import { OFFLINE_MODEL_ID } from '../../../src/server/providers/offline';
import { openAiError, startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { chatBody, errorBody, getSession, newSession, postStream, readStream, testGateway, type TestGateway, type TestSession } from './helpers';

let up: FakeUpstream;
let gw: TestGateway;

// Long enough that a busy machine's pauses (the fake upstream runs in this process) never look like a stall to the
// gateway: at 250 ms a loaded CI machine turned a healthy reply into a 503.
const STALL_MS = 1_500;
const PRICING = { 'paid-model': { input: '1.5', output: '3' } }; // USD per 1M tokens

beforeAll(async () => {
  up = await startFakeUpstream(textReply('unused'), { apiKey: 'sk-test-123' });
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([
      { name: 'fake', url: up.url, key: 'sk-test-123', models: ['free-model', 'paid-model'], pricing: PRICING },
      { name: 'dead', url: 'http://127.0.0.1:9/v1', models: ['dead-model'] },
    ]),
    PARLEY_STALL_MS: String(STALL_MS),
    // A reply whose client left waits this long for a resume before its upstream is aborted.
    PARLEY_RESUME_GRACE_MS: '300',
    PARLEY_NANO_USD_PRICE: '1',
  });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});
beforeEach(() => {
  up.requests.length = 0;
});

async function credited(usdMicro: bigint, nanoRaw = 0n): Promise<TestSession> {
  const s = await newSession(gw.app);
  if (usdMicro > 0n || nanoRaw > 0n) await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro, nanoRaw });
  return s;
}

describe('POST /api/stream-gpt: validation', () => {
  it('400 BAD_REQUEST for malformed JSON and schema failures, never 500', async () => {
    const s = await newSession(gw.app);
    const raws = ['', '   ', 'not json', '{', '{"model":', 'null', '[]', '42', '"text"'];
    for (const raw of raws) {
      const res = await postStream(gw.app, s.cookie, raw, { raw: true });
      expect(res.status, JSON.stringify(raw)).toBe(400);
      const b = await errorBody(res);
      expect(b.error).toBe('BAD_REQUEST');
      expect(b.message.length).toBeGreaterThan(0);
    }
    const good = chatBody('free-model', 'hi');
    const bodies: unknown[] = [
      {},
      { ...good, model: undefined },
      { ...good, model: '' },
      { ...good, model: 'x'.repeat(201) },
      { ...good, messages: undefined },
      { ...good, messages: [] },
      { ...good, messages: 'hello' },
      { ...good, messages: [{ role: 'wizard', content: 'hi' }] },
      { ...good, messages: [{ role: 'user', content: 5 }] },
      { ...good, messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] },
      { ...good, conversationUUID: undefined },
      { ...good, conversationUUID: '' },
      { ...good, requestId: 'short' },
      { ...good, temperature: 3 },
      { ...good, maxTokens: -1 },
      { ...good, maxTokens: 1.5 },
      { ...good, scrapedUrls: Array.from({ length: 26 }, () => 'https://x') },
    ];
    for (const body of bodies) {
      const res = await postStream(gw.app, s.cookie, body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      const b = await errorBody(res);
      expect(b.error).toBe('BAD_REQUEST');
      expect(b.message).toMatch(/^Invalid request: /);
    }
    expect(up.requests).toHaveLength(0);
  });

  it('400 UNKNOWN_MODEL for a model not in the catalogue', async () => {
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('no-such-model', 'hi'));
    expect(res.status).toBe(400);
    expect(await errorBody(res)).toMatchObject({ error: 'UNKNOWN_MODEL' });
  });

  it('413 for a body over the limit; 405 for GET', async () => {
    const small = await gw.rebuild({ PARLEY_MAX_BODY_BYTES: '2048' });
    const s = await newSession(small.app);
    const res = await postStream(small.app, s.cookie, chatBody(OFFLINE_MODEL_ID, 'x'.repeat(5000)));
    expect(res.status).toBe(413);
    expect((await errorBody(res)).error).toBe('PAYLOAD_TOO_LARGE');
    const get = await small.app.request('/api/stream-gpt', { headers: { cookie: s.cookie } });
    expect(get.status).toBe(405);
  });
});

describe('POST /api/stream-gpt: balance', () => {
  it('402 INSUFFICIENT_BALANCE for a paid model without balance, with requiredBalance in nano and requiredUsd', async () => {
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('paid-model', 'hello'));
    expect(res.status).toBe(402);
    const b = await errorBody(res);
    expect(b.error).toBe('INSUFFICIENT_BALANCE');
    expect(b.message).toMatch(/balance/i);
    // The hold: 'hello' = 2 tokens x 1.5 + 8192 output tokens (no maxTokens) x 3 = 24,579 micro-dollars = 0.024579 XNO at price 1
    expect(b.requiredBalance).toBe('0.024579');
    expect(b.requiredUsd).toBe('0.024579');
    const small = await errorBody(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hello', { maxTokens: 10 })));
    expect(small.requiredBalance).toBe('0.000033');
    const tiny = await errorBody(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi', { maxTokens: 1 })));
    expect(tiny).toMatchObject({ requiredBalance: '0.000010', requiredUsd: '0.000010' }); // never below the threshold
    expect(up.requests).toHaveLength(0);
  });

  it('the threshold is "above 0.00001": exactly 0.00001 USD or nano is refused, 0.000011 USD is enough for a 5 micro-dollar hold', async () => {
    up.setScript(textReply('ok'));
    const tiny = { maxTokens: 1 }; // 'hi' = 1 x 1.5 + 1 x 3 -> a hold of 5 micro-dollars
    const exactUsd = await credited(10n);
    expect((await postStream(gw.app, exactUsd.cookie, chatBody('paid-model', 'hi', tiny))).status).toBe(402);
    const exactNano = await credited(0n, 10n ** 25n);
    expect((await postStream(gw.app, exactNano.cookie, chatBody('paid-model', 'hi', tiny))).status).toBe(402);
    const above = await credited(11n);
    const res = await postStream(gw.app, above.cookie, chatBody('paid-model', 'hi', tiny));
    expect(res.status).toBe(200);
    await res.text();
  });

  it('free and offline models need no balance', async () => {
    up.setScript(textReply('free answer'));
    const s = await newSession(gw.app);
    const r1 = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi'));
    expect(r1.status).toBe(200);
    expect((await readStream(r1)).body).toBe('free answer');
    const r2 = await postStream(gw.app, s.cookie, chatBody(OFFLINE_MODEL_ID, 'hi'));
    expect(r2.status).toBe(200);
  });

  it('a free reply costs 0 and names no paymentSource (no balance paid for it), whatever the session holds', async () => {
    const s = await credited(0n, 10n ** 30n);
    const { meta } = await readStream(await postStream(gw.app, s.cookie, chatBody(OFFLINE_MODEL_ID, 'hi')));
    expect(meta.cost).toBe(0);
    expect(meta.paymentSource).toBeUndefined();
    expect((await getSession(gw.app, s.cookie)).nano_balance).toBe('1.000000');
  });

  it('402, then success after `admin credit`', async () => {
    up.setScript(textReply('paid answer', { usage: { prompt_tokens: 10, completion_tokens: 2 } }));
    const s = await newSession(gw.app);
    expect((await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi'))).status).toBe(402);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(['credit', s.data.id, '2.5'], { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, db: gw.db });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('New balance: 2.500000 USD');
    const res = await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi'));
    expect(res.status).toBe(200);
    const { body, meta } = await readStream(res);
    expect(body).toBe('paid answer');
    // 10 x 1.5 + 2 x 3 = 21 USD per 1M -> 21 micro-dollars
    expect(meta.cost).toBe(0.000021);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('2.499979');
  });
});

describe('POST /api/stream-gpt: streaming and framing', () => {
  it('offline model: text/plain stream of Markdown ending with a metadata tag; counts a reply', async () => {
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody(OFFLINE_MODEL_ID, 'Explain the water cycle briefly.'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { body, meta } = await readStream(res);
    expect(body).toContain('Explain the water cycle briefly.');
    expect(body).toContain('```');
    expect(body).not.toContain('<think>');
    expect(meta).toMatchObject({ cost: 0, isPartial: false, model: OFFLINE_MODEL_ID });
    expect(meta.inputTokens).toBeGreaterThan(0);
    expect(meta.outputTokens).toBeGreaterThan(0);
    expect(meta.error).toBeUndefined();
    expect((await getSession(gw.app, s.cookie)).numReplies).toBe(1);
  });

  it('offline model: thinking when asked to reason, closed before the answer', async () => {
    const s = await newSession(gw.app);
    const { body } = await readStream(await postStream(gw.app, s.cookie, chatBody(OFFLINE_MODEL_ID, 'Think step by step: what is 6*7?')));
    expect(body.startsWith('<think>')).toBe(true);
    const close = body.indexOf('</think>');
    expect(close).toBeGreaterThan(0);
    expect(body.indexOf('<think>', 1)).toBe(-1);
    expect(body.slice(close)).toContain('6 \\times 7 = 42');
  });

  it('relays upstream content exactly and sends the upstream an OpenAI streaming request', async () => {
    const text = 'Hello, **world**! ünïcødé 🚀 and <b>tags</b>\nsecond line';
    up.setScript(textReply(text, { chunkSize: 3 }));
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi', { maxTokens: 300, temperature: 0.5 }));
    const { body, meta } = await readStream(res);
    expect(body).toBe(text);
    expect(meta).toMatchObject({ isPartial: false, model: 'free-model', cost: 0 });
    const req = up.requests[0];
    expect(req?.headers.authorization).toBe('Bearer sk-test-123');
    expect(req?.body).toMatchObject({
      model: 'free-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.5,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('the deltas of one network chunk go out as one write, not one write per delta', async () => {
    // The fake upstream writes its 20 deltas in one turn: they reach the gateway as one network chunk (loopback may
    // split it once in a while, hence a bound well under one write per delta rather than an exact count).
    const words = Array.from({ length: 20 }, (_, i) => `w${i} `);
    up.setScript({ steps: words.map((content) => ({ content })) });
    const writes = vi.spyOn(InFlightReply.prototype, 'write');
    try {
      const s = await newSession(gw.app);
      const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'q')));
      expect(body).toBe(words.join(''));
      expect(meta).toMatchObject({ isPartial: false, cost: 0 });
      // The text (one write per network chunk) and the metadata tag.
      expect(writes.mock.calls.length).toBeLessThan(words.length / 2);
    } finally {
      writes.mockRestore();
    }
  });

  it('an emoji split across two deltas (surrogate halves) arrives whole', async () => {
    // JSON.stringify writes a lone surrogate as an escape, as an upstream cutting a pair in two would.
    const [hi, lo] = ['\ud83d', '\ude80'];
    up.setScript({ steps: [{ content: `go ${hi}` }, { content: `${lo}!` }, { reasoning: 'x' }, { content: `end ${hi}` }] });
    const s = await newSession(gw.app);
    const { body } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'q')));
    expect(body).toBe('go 🚀!<think>x</think>end \uFFFD');
  });

  it('a web-search suffix (:online) resolves to the base model, and the reply says no search ran here', async () => {
    up.setScript(textReply('not searched'));
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('free-model:online/linkup-deep', 'hi'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-parley-web-search')).toBe('not-run');
    const { body, meta } = await readStream(res);
    expect(body).toBe('not searched');
    expect(meta.webNotice).toBe(WEB_NOT_RUN_NOTICE);
    expect(up.requests[0]?.body?.model).toBe('free-model');
    // linkupDepth or scrapedUrls alone say it too; a plain request carries no notice.
    for (const extra of [{ transactionDetails: { linkupDepth: 'standard' } }, { scrapedUrls: ['https://a.example/'] }]) {
      const r = await postStream(gw.app, s.cookie, { ...chatBody('free-model', 'hi'), ...extra });
      expect(r.headers.get('x-parley-web-search')).toBe('not-run');
      expect((await readStream(r)).meta.webNotice).toBe(WEB_NOT_RUN_NOTICE);
    }
    const plain = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi'));
    expect(plain.headers.get('x-parley-web-search')).toBeNull();
    expect((await readStream(plain)).meta.webNotice).toBeUndefined();
  });

  it('a caller that searched or scraped first (webContextIncluded) gets no "not-run" notice for the web fields it names', async () => {
    up.setScript(textReply('with sources'));
    const s = await newSession(gw.app);
    const body = { ...chatBody('free-model:online', 'hi'), transactionDetails: { linkupDepth: 'standard' }, scrapedUrls: ['https://a.example/'], webContextIncluded: true };
    const res = await postStream(gw.app, s.cookie, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-parley-web-search')).toBeNull();
    const { body: text, meta } = await readStream(res);
    expect(text).toBe('with sources');
    expect(meta.webNotice).toBeUndefined();
    expect(up.requests.at(-1)?.body).not.toHaveProperty('webContextIncluded');
    // Saying it did not (false) is the same as not saying.
    const r = await postStream(gw.app, s.cookie, { ...body, webContextIncluded: false });
    expect(r.headers.get('x-parley-web-search')).toBe('not-run');
    expect((await readStream(r)).meta.webNotice).toBe(WEB_NOT_RUN_NOTICE);
  });

  it('reasoning deltas become one <think> run, closed when content starts', async () => {
    up.setScript({
      steps: [{ reasoning: 'Let me ' }, { reasoning: 'think.', field: 'reasoning_content' }, { content: 'The ' }, { content: 'answer.' }],
    });
    const s = await newSession(gw.app);
    const { body } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'q')));
    expect(body).toBe('<think>Let me think.</think>The answer.');
  });

  it('each reasoning run opens its own <think>; a trailing run is closed before the metadata', async () => {
    up.setScript({ steps: [{ reasoning: 'a' }, { content: 'b' }, { reasoning: 'c' }, { content: 'd' }, { reasoning: 'e' }] });
    const s = await newSession(gw.app);
    const { body } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'q')));
    expect(body).toBe('<think>a</think>b<think>c</think>d<think>e</think>');
    expect(body).not.toContain(CLEAR_THINKING_MESSAGE);
  });

  it('keep-alive comments count as activity (no stall while they arrive)', async () => {
    const gap = Math.round(STALL_MS * 0.6);
    up.setScript({ steps: [{ content: 'a' }, { delayMs: gap }, { comment: 'OPENROUTER PROCESSING' }, { delayMs: gap }, { content: 'b' }] });
    const s = await newSession(gw.app);
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'q')));
    expect(body).toBe('ab');
    expect(meta.isStreamStall).toBeUndefined();
    expect(meta.error).toBeUndefined();
  });
});

describe('POST /api/stream-gpt: charging', () => {
  it('charges usage x pricing exactly and reduces the balance by that amount', async () => {
    up.setScript(textReply('priced reply', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
    const s = await credited(1_000_000n); // $1
    const { meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi', { requestId: 'req-cost-0001' })));
    // 1000 x 1.5 + 2000 x 3 = 7500 USD per 1M tokens -> $0.0075
    expect(meta).toMatchObject({ cost: 0.0075, paymentSource: 'USD', inputTokens: 1000, outputTokens: 2000, isPartial: false, model: 'paid-model' });
    expect(meta.billingError).toBeUndefined();
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('0.992500');
    expect(data.numReplies).toBe(1);
  });

  it('the same requestId is charged once', async () => {
    up.setScript(textReply('again', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
    const s = await credited(1_000_000n);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-idem-0001' });
    const a = await readStream(await postStream(gw.app, s.cookie, body));
    const b = await readStream(await postStream(gw.app, s.cookie, body));
    expect(a.meta.cost).toBe(0.0075);
    expect(b.meta.cost).toBe(0.0075); // the same reply again, not a new charge
    expect(b.body).toBe('again');
    expect(up.requests).toHaveLength(1); // a true retry never starts a second generation
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('0.992500');
    expect(data.numReplies).toBe(1);
    // Another session using the same requestId is charged on its own.
    const other = await credited(1_000_000n);
    await readStream(await postStream(gw.app, other.cookie, body));
    expect((await getSession(gw.app, other.cookie)).usd_balance).toBe('0.992500');
  });

  it('without usage from the upstream, tokens are estimated as characters / 4', async () => {
    up.setScript(textReply('x'.repeat(400), { chunkSize: 50 })); // no usage chunk
    const s = await credited(1_000_000n);
    const { meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'y'.repeat(40))));
    expect(meta.inputTokens).toBe(10);
    expect(meta.outputTokens).toBe(100);
    // 10 x 1.5 + 100 x 3 = 315 micro-dollars
    expect(meta.cost).toBe(0.000315);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.999685');
  });

  it('pays from nano at PARLEY_NANO_USD_PRICE when there is no USD', async () => {
    up.setScript(textReply('nano paid', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
    const s = await credited(0n, 10n ** 30n); // 1 XNO
    const { meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi')));
    expect(meta).toMatchObject({ cost: 0.0075, paymentSource: 'nano' });
    const data = await getSession(gw.app, s.cookie);
    expect(data.nano_balance).toBe('0.992500');
    expect(data.usd_balance).toBe('0.000000');
  });

  it('a request whose maximum cost the balance cannot hold is refused before the upstream, nothing taken', async () => {
    up.setScript(textReply('expensive', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
    const s = await credited(1_000n); // $0.001 < the hold of 1 x 1.5 + 8192 x 3 = $0.024578
    const res = await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi'));
    expect(res.status).toBe(402);
    expect(await errorBody(res)).toMatchObject({ error: 'INSUFFICIENT_BALANCE', requiredUsd: '0.024578' });
    expect(up.requests).toHaveLength(0);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.001000');
  });
});

describe('POST /api/stream-gpt: upstream failures', () => {
  it('upstream 429 before streaming -> 429 JSON with the upstream code and message', async () => {
    up.setScript({ error: { status: 429, body: openAiError('Rate limit reached for requests', 'requests', 'rate_limit_exceeded') } });
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi'));
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await errorBody(res)).toEqual({ error: 'rate_limit_exceeded', message: 'Rate limit reached for requests' });
  });

  it('400/402/403/503 pass through; other statuses become 502', async () => {
    const s = await newSession(gw.app);
    const cases: [number, unknown, number, { error: string; message: string }][] = [
      [400, openAiError('Your prompt was flagged', 'invalid_request_error', 'content_policy_violation'), 400, { error: 'content_policy_violation', message: 'Your prompt was flagged' }],
      [402, { error: { message: 'Insufficient credits' } }, 402, { error: 'UPSTREAM_402', message: 'Insufficient credits' }],
      [403, { error: 'forbidden', message: 'Region blocked' }, 403, { error: 'forbidden', message: 'Region blocked' }],
      [503, 'Service Unavailable', 503, { error: 'UPSTREAM_503', message: 'Service Unavailable' }],
      [500, openAiError('The server had an error', 'server_error'), 502, { error: 'server_error', message: 'The server had an error' }],
      [404, openAiError('The model does not exist', 'invalid_request_error', 'model_not_found'), 502, { error: 'model_not_found', message: 'The model does not exist' }],
      [401, '', 502, { error: 'UPSTREAM_401', message: 'The model provider answered with HTTP 401' }],
    ];
    for (const [status, body, expected, json] of cases) {
      up.setScript({ error: { status, body } });
      const res = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi'));
      expect(res.status, `upstream ${status}`).toBe(expected);
      expect(await errorBody(res)).toEqual(json);
    }
  });

  it("upstream 413 -> 413 CONTEXT_TOO_LONG (not the gateway's PAYLOAD_TOO_LARGE) with the provider's message; nothing charged", async () => {
    const message = 'Context memory is indexing your conversation (48213 tokens). Estimated time: 30 seconds.';
    up.setScript({ error: { status: 413, body: openAiError(message, 'request_too_large', 'context_length_exceeded') } });
    const s = await credited(1_000_000n);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-ctx-413-0001' });
    const res = await postStream(gw.app, s.cookie, body);
    expect(res.status).toBe(413);
    expect(await errorBody(res)).toEqual({ error: 'CONTEXT_TOO_LONG', message });
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('1.000000');
    // Resend (the same request once indexing is done) is a new attempt, not a replay of the refusal.
    up.setScript(textReply('Indexed now.'));
    const again = await postStream(gw.app, s.cookie, body);
    expect(again.status).toBe(200);
    expect((await readStream(again)).body).toBe('Indexed now.');
  });

  it('an unreachable upstream -> 503 UPSTREAM_UNREACHABLE', async () => {
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('dead-model', 'hi'));
    expect(res.status).toBe(503);
    expect((await errorBody(res)).error).toBe('UPSTREAM_UNREACHABLE');
  });

  it('connection dropped mid-stream -> text so far, then metadata with error and isPartial; charged', async () => {
    up.setScript({ steps: [{ content: 'Partial ' }, { content: 'answer' }], end: 'drop', usage: { prompt_tokens: 1, completion_tokens: 1 } });
    const s = await credited(1_000_000n);
    const res = await postStream(gw.app, s.cookie, chatBody('paid-model', 'y'.repeat(40)));
    expect(res.status).toBe(200);
    const { body, meta } = await readStream(res);
    expect(body).toBe('Partial answer');
    expect(meta.isPartial).toBe(true);
    expect(meta.error).toEqual(expect.any(String));
    expect(meta.isStreamStall).toBeUndefined();
    // estimated: 10 input, ceil(14/4) = 4 output -> 10 x 1.5 + 4 x 3 = 27 micro
    expect(meta.cost).toBe(0.000027);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.999973');
  });

  it('dropped before any text -> isPartial false, not charged', async () => {
    up.setScript({ steps: [], end: 'drop' });
    const s = await credited(1_000_000n);
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi')));
    expect(body).toBe('');
    expect(meta).toMatchObject({ isPartial: false, cost: 0 });
    expect(meta.error).toEqual(expect.any(String));
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('1.000000');
    expect(data.numReplies).toBe(0);
  });

  it('a response ending without [DONE] or finish_reason is an error', async () => {
    up.setScript({ steps: [{ content: 'cut' }], end: 'end' });
    const s = await newSession(gw.app);
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'hi')));
    expect(body).toBe('cut');
    expect(meta).toMatchObject({ isPartial: true, error: 'The model stream ended unexpectedly' });
  });

  it('an error object inside the stream -> metadata error with its message', async () => {
    up.setScript({ steps: [{ content: 'Some ' }, { streamError: { message: 'Provider returned error', code: 502 } }] });
    const s = await newSession(gw.app);
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'hi')));
    expect(body).toBe('Some ');
    expect(meta).toMatchObject({ error: 'Provider returned error', isPartial: true });
  });

  it('stall longer than PARLEY_STALL_MS -> upstream aborted, metadata isStreamStall, not charged', async () => {
    up.setScript({ steps: [{ content: 'Before the stall' }], end: 'stall', usage: { prompt_tokens: 1000, completion_tokens: 2000 } });
    const s = await credited(1_000_000n);
    const started = Date.now();
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi')));
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALL_MS - 20);
    expect(body).toBe('Before the stall');
    expect(meta).toMatchObject({ error: 'Model stopped responding', isStreamStall: true, isPartial: true, cost: 0 });
    await up.settled();
    expect(up.requests[0]?.aborted).toBe(true);
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('1.000000');
    expect(data.numReplies).toBe(0);
  });

  it('stall with no text -> isPartial false', async () => {
    up.setScript({ steps: [], end: 'stall' });
    const s = await newSession(gw.app);
    const { meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('free-model', 'hi')));
    expect(meta).toMatchObject({ isStreamStall: true, isPartial: false });
  });

  it('an upstream that sends no headers within the stall limit -> 503 UPSTREAM_STALL', async () => {
    up.setScript({ headersDelayMs: STALL_MS * 3, steps: [{ content: 'late' }] });
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi'));
    expect(res.status).toBe(503);
    expect(await errorBody(res)).toEqual({ error: 'UPSTREAM_STALL', message: 'Model stopped responding' });
  });

  it('a client that leaves and is not back within the resume grace: the upstream request is aborted', async () => {
    // The upstream keeps sending within the stall limit, so only the lost client can end it before its last word.
    const steps = Array.from({ length: 40 }, (_, i) => [{ delayMs: 200 }, { content: `w${i} ` }]).flat();
    up.setScript({ steps: [{ content: 'first ' }, ...steps, { content: 'never' }] });
    const s = await newSession(gw.app);
    const res = await postStream(gw.app, s.cookie, chatBody('free-model', 'hi', { requestId: 'req-disconnect-1' }));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('first ');
    await reader.cancel();
    await up.settled(1);
    expect(up.requests[0]?.aborted).toBe(true);
  });
});
