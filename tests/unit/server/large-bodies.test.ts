/**
 * Issue 5, item 1, for request bodies: the reply routes accept 25 MiB (a conversation's images), and parsing that on
 * the event loop took 26 ms (one big string) to over 300 ms (many tiny parts) during which every other request
 * waited. Bodies over INLINE_BODY_BYTES are parsed in the body worker (src/server/body/parse-pool.ts). Checked
 * without wall-clock limits (a loaded machine makes any "under N ms" flaky): while such a body is read, parsed and
 * answered, nothing on the event loop (this thread, where the gateway runs) parses, serialises, decodes or joins
 * more than INLINE_BODY_BYTES at once; and what reaches the upstream, the hold and the offline engine must be
 * exactly what a body parsed in place gives.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../../src/protocol/api';
import { estimateInputTokens } from '../../../src/server/body/chat-payload';
import { INLINE_BODY_BYTES } from '../../../src/server/body/parse-pool';
import { formatUsdMicro, replyCostMicro } from '../../../src/server/money/amounts';
import { composeOfflineReply } from '../../../src/server/providers/offline';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';

const MiB = 1024 * 1024;
let gw: RunningGateway;
let up: FakeUpstream;
let cookie = '';
let sessionId = '';

beforeAll(async () => {
  up = await startFakeUpstream(textReply('ok', { usage: { prompt_tokens: 10, completion_tokens: 1 } }), { models: ['paid-model'] });
  gw = await startGateway({
    port: 0,
    memory: true,
    clientDir: null,
    inheritEnv: false,
    env: {
      PARLEY_OFFLINE_TOKEN_DELAY_MS: '0',
      PARLEY_COSTLY_RATE_BURST: '1000',
      PARLEY_UPSTREAM_URL: up.url,
      PARLEY_UPSTREAM_MODELS: 'paid-model',
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'paid-model': { input: '1.5', output: '3' } }),
      PARLEY_MAX_BODY_BYTES: String(26 * MiB),
    },
    log: () => {},
  });
  const res = await fetch(`${gw.url}/auth/local-session`);
  cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  sessionId = ((await res.json()) as { data: { id: string } }).data.id;
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

/**
 * POSTs prepared bytes over node:http (the bytes are encoded before, so the client's own work does not sit on the
 * event loop this test shares with the gateway); `chunked` sends no Content-Length.
 */
function post(path: string, body: Buffer, chunked = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(gw.url);
    const headers: Record<string, string | number> = { cookie, 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = body.byteLength;
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (chunked) {
      for (let at = 0; at < body.byteLength; at += 256 * 1024) req.write(body.subarray(at, at + 256 * 1024));
      req.end();
    } else req.end(body);
  });
}

const chat = (model: string, messages: ChatMessage[], extra: Record<string, unknown> = {}): Buffer =>
  Buffer.from(JSON.stringify({ model, messages, conversationUUID: 'c', ...extra }));

/** 25 MiB bodies of the shapes that cost JSON.parse and zod the most. */
function shapes(): Record<string, ChatMessage[]> {
  const size = 25 * MiB;
  const tiny: { type: 'text'; text: string }[] = [];
  for (let n = 0; n < size; n += 27) tiny.push({ type: 'text', text: 'x' });
  const many: ChatMessage[] = [];
  for (let i = 0; i < 1000; i++) many.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}. `.padEnd(size / 1000 - 40, 'y') });
  return {
    'many tiny text parts': [{ role: 'user', content: tiny }],
    'one image data URL': [{ role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${'QUJD'.repeat(size / 4)}` } }] }],
    'escaped text': [{ role: 'user', content: '\n"\u00e9\\'.repeat(size / 8) }],
    '1,000 messages': many,
  };
}

/**
 * Runs `work` while recording the largest text or buffer this thread's JSON.parse, JSON.stringify, TextDecoder,
 * Buffer#toString and Buffer.concat handled (their sizes in characters or bytes). The body worker is another thread
 * with its own JSON, so its parsing is not seen here: only work that would hold the event loop is.
 */
async function largestOnLoop<T>(work: () => Promise<T>): Promise<{ result: T; largest: Record<string, number> }> {
  const largest: Record<string, number> = { 'JSON.parse': 0, 'JSON.stringify': 0, 'TextDecoder#decode': 0, 'Buffer#toString': 0, 'Buffer.concat': 0 };
  const note = (what: string, size: number | undefined): void => {
    if (size !== undefined && size > (largest[what] ?? 0)) largest[what] = size;
  };
  const { parse, stringify } = JSON;
  const decode = TextDecoder.prototype.decode;
  const toString = Buffer.prototype.toString;
  const concat = Buffer.concat;
  const spies = [
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      note('JSON.parse', typeof text === 'string' ? text.length : undefined);
      return parse(text, reviver);
    }),
    vi.spyOn(JSON, 'stringify').mockImplementation(function (this: unknown, ...args: Parameters<typeof JSON.stringify>) {
      const out = stringify(...args);
      note('JSON.stringify', typeof out === 'string' ? out.length : undefined);
      return out;
    } as typeof JSON.stringify),
    vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (this: TextDecoder, ...args: Parameters<TextDecoder['decode']>) {
      const out = decode.apply(this, args);
      note('TextDecoder#decode', out.length);
      return out;
    }),
    vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
      const out = (toString as (...a: unknown[]) => string).apply(this, args);
      note('Buffer#toString', out.length);
      return out;
    }),
    vi.spyOn(Buffer, 'concat').mockImplementation((...args: Parameters<typeof Buffer.concat>) => {
      const out = concat(...args);
      note('Buffer.concat', out.byteLength);
      return out;
    }),
  ];
  try {
    return { result: await work(), largest };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

describe('a 25 MiB body does not hold the event loop', () => {
  for (const [name, messages] of Object.entries(shapes())) {
    it(`nothing larger than INLINE_BODY_BYTES is handled on the event loop while the gateway reads ${name}; the offline reply is the same as in place`, async () => {
      const body = chat('parley-offline', messages);
      expect(body.byteLength).toBeGreaterThan(24 * MiB);
      const expected = composeOfflineReply(messages).text;
      const inputTokens = estimateInputTokens(messages);
      const { result, largest } = await largestOnLoop(() => post('/api/stream-gpt', body));
      expect(result.status).toBe(200);
      expect(result.text).toContain(expected);
      expect(result.text).toContain(`"inputTokens":${inputTokens}`);
      // Parsing, serialising or joining the body here (as before the body worker) handles 25 MiB at once.
      for (const [what, size] of Object.entries(largest)) expect(size, what).toBeLessThan(INLINE_BODY_BYTES);
    }, 120_000);
  }

  it("the recorder sees the gateway's own parsing on this thread (a body just under INLINE_BODY_BYTES), so the test above can fail", async () => {
    const body = chat('parley-offline', [{ role: 'user', content: 'z'.repeat(INLINE_BODY_BYTES - 200) }]);
    expect(body.byteLength).toBeLessThanOrEqual(INLINE_BODY_BYTES);
    const { result, largest } = await largestOnLoop(() => post('/api/stream-gpt', body));
    expect(result.status).toBe(200);
    expect(largest['JSON.parse']).toBe(body.byteLength);
  });
});

describe('a body parsed off the event loop is the same request', () => {
  const image = `data:image/jpeg;base64,${'/9j/'.repeat(768 * 1024)}`; // a 3 MiB photo, as the engine sends it
  const messages: ChatMessage[] = [
    { role: 'system', content: 'Be brief. Quotes " and \\ and é stay as they are.' },
    { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: image } }] },
  ];

  it('the upstream gets the messages byte for byte; the hold is planned from the whole conversation', async () => {
    const body = chat('paid-model', messages, { requestId: 'req-large-paid-1', maxTokens: 100 });
    expect(body.byteLength).toBeGreaterThan(INLINE_BODY_BYTES);
    // Without money: refused for exactly the hold a body parsed in place asks for.
    const refused = await post('/api/stream-gpt', body);
    expect(refused.status).toBe(402);
    const hold = replyCostMicro({ inputMicroPerM: 1_500_000n, outputMicroPerM: 3_000_000n }, estimateInputTokens(messages), 100);
    expect(JSON.parse(refused.text)).toMatchObject({ error: 'INSUFFICIENT_BALANCE', requiredUsd: formatUsdMicro(hold) });
    expect(up.requests).toHaveLength(0);

    await gw.ledger.credit(sessionId, { key: `seed:${sessionId}`, usdMicro: 1_000_000n });
    const res = await post('/api/stream-gpt', body);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^ok<metadata>/);
    const sent = up.requests[0]?.body;
    expect(sent?.messages).toEqual(messages);
    expect(sent).toMatchObject({ model: 'paid-model', stream: true, max_tokens: 100 });
  });

  it('a body sent without Content-Length is counted as it arrives: parsed off the loop, or 413 past the limit', async () => {
    const ok = await post('/api/stream-gpt', chat('parley-offline', messages), true);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('**Images attached:** 1');
    const tooBig = await post('/api/stream-gpt', chat('parley-offline', [{ role: 'user', content: 'y'.repeat(27 * MiB) }]), true);
    expect(tooBig.status).toBe(413);
    expect(JSON.parse(tooBig.text)).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
  });

  it('a malformed or invalid large body is a 400 with the same messages as a small one', async () => {
    const broken = await post('/api/stream-gpt', Buffer.from(`{"model":"parley-offline","messages":[${'1,'.repeat(200_000)}`));
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).message).toMatch(/^The request body is not valid JSON/);
    const invalid = await post('/api/stream-gpt', chat('parley-offline', [{ role: 'robot' as 'user', content: 'z'.repeat(INLINE_BODY_BYTES) }]));
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text).message).toMatch(/^Invalid request: messages\.0\.role/);
  });
});
