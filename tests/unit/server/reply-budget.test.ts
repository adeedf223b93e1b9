/**
 * Issue 15, item 7: replies stop at what was held. An upstream that ignores max_tokens (here a loopback fake that
 * streams 20,000 tokens whatever it is asked) used to have all of it relayed for the price of the hold's budget
 * (maxTokens 1: 20,000 tokens for $0.00004). The gateway now counts the output as it streams, relays at most the
 * held output, aborts the upstream, settles at most the hold and marks the reply cut; on stream-gpt, on each
 * multi-model column and on an image-capable chat model's lines.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GeminiLineParser } from '../../../src/protocol/image-rules';
import { IMAGE_OUTPUT_TOKENS, OutputBudget, replyLimitMessage } from '../../../src/server/providers/output-budget';
import { MultiStreamParser, type MultiStreamEvent } from '../../../src/worker/rooms/multimodel/multi-stream';
import { chunkLine, startFakeUpstream, type FakeRequest, type FakeScript, type FakeStep, type FakeUpstream } from './fake-upstream';
import { chatBody, newSession, postStream, readStream, testGateway, type TestGateway, type TestSession } from './helpers';
import { expectLedgerBalanced } from './money-checks';

const TOKENS = 20_000;
const PAID = 'paid-model';
const PAID_B = 'paid-b';
const IMAGE_MODEL = 'google/gemini-2.5-flash-image';
// $10 and $20 per 1M output tokens: the 20,000 tokens list at $0.20 (the figure) on PAID.
const PRICING = { [PAID]: { input: '1', output: '10' }, [PAID_B]: { input: '1', output: '10' }, [IMAGE_MODEL]: { input: '1', output: '10' } };

/** A runaway upstream: 20,000 one-token deltas whatever max_tokens says, paced so that a stop can be seen. */
function runaway(extra: FakeStep[] = []): FakeScript {
  const steps: FakeStep[] = [...extra];
  for (let i = 0; i < TOKENS; i++) {
    steps.push({ content: ' tok' });
    if (i % 20 === 19) steps.push({ delayMs: 1 });
  }
  return { steps, usage: { prompt_tokens: 10, completion_tokens: TOKENS } };
}

let up: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  up = await startFakeUpstream(runaway());
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([{ name: 'fake', url: up.url, models: [PAID, PAID_B, IMAGE_MODEL], pricing: PRICING }]),
    PARLEY_STALL_MS: '20000',
  });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});
beforeEach(() => {
  up.requests.length = 0;
  up.setScript(runaway());
});

async function credited(): Promise<TestSession> {
  const s = await newSession(gw.app);
  await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
  return s;
}

/** The hold a key reserved and what was charged under it, micro-dollars. */
async function holdAndCharge(key: string): Promise<{ held: bigint; charged: bigint }> {
  const h = await gw.db.query<{ m: string }>('SELECT max_usd_micro::text AS m FROM ledger_holds WHERE hold_key = $1', [key]);
  const c = await gw.db.query<{ a: string }>(`SELECT applied_usd_micro::text AS a FROM ledger_entries WHERE idempotency_key = $1 AND kind = 'charge'`, [key]);
  return { held: BigInt(h[0]?.m ?? '-1'), charged: BigInt(c[0]?.a ?? '0') };
}

/** Waits until the fake upstream saw its request closed by the gateway, and says how much it had generated. */
async function upstreamStopped(req: FakeRequest | undefined): Promise<FakeRequest> {
  expect(req).toBeDefined();
  await up.settled();
  return req!;
}

describe('the output budget', () => {
  it('counts at least a token a chunk, a quarter per ASCII character, a half otherwise; never splits an emoji; lines whole', () => {
    const b = new OutputBudget(3);
    expect(b.take(' a')).toBe(' a');
    expect(b.take(' a')).toBe(' a');
    expect(b.take(' a')).toBe(' a');
    expect(b.exhausted).toBe(false);
    expect(b.take(' a')).toBe('');
    expect(b.exhausted).toBe(true);
    // One big chunk is cut to what fits: 2 tokens = 8 ASCII characters, or 4 CJK characters.
    expect(new OutputBudget(2).take('x'.repeat(10_000))).toBe('x'.repeat(8));
    expect(new OutputBudget(2).take('漢'.repeat(100))).toBe('漢'.repeat(4));
    // An emoji is two UTF-16 units (a token's worth): not split in half.
    expect(new OutputBudget(1).take('ab😀')).toBe('ab');
    // An image line stands for IMAGE_OUTPUT_TOKENS and is relayed whole or not at all.
    const lines = new OutputBudget(IMAGE_OUTPUT_TOKENS + 10);
    expect(lines.take('{"type":"image","data":"AAAA..."}\n', IMAGE_OUTPUT_TOKENS)).toContain('image');
    expect(lines.take('{"type":"image","data":"BBBB..."}\n', IMAGE_OUTPUT_TOKENS)).toBe('');
    expect(lines.used).toBeLessThanOrEqual(IMAGE_OUTPUT_TOKENS + 10);
  });
});

describe('POST /api/stream-gpt with an upstream that ignores max_tokens', () => {
  it('maxTokens 1: the client gets about one token, the charge is at most the hold, the reply is marked cut, the upstream is closed', async () => {
    const s = await credited();
    const res = await postStream(gw.app, s.cookie, chatBody(PAID, 'Say one word', { requestId: 'budget-1', maxTokens: 1 }));
    expect(res.status).toBe(200);
    const { body, meta } = await readStream(res);
    expect(up.requests[0]?.body?.max_tokens).toBe(1);
    expect(body).toBe(' tok');
    expect(meta).toMatchObject({ isPartial: true, error: replyLimitMessage(1), outputTokens: 1 });
    const { held, charged } = await holdAndCharge(`chat:${s.data.id}:budget-1`);
    expect(charged).toBeGreaterThan(0n);
    expect(charged).toBeLessThanOrEqual(held);
    expect(meta.cost).toBe(Number(charged) / 1e6);
    // The list price of what the upstream offered was $0.20; the session paid the hold at most.
    expect(charged).toBeLessThan(200_000n);
    // The upstream request was aborted: it stopped generating long before its 20,000 tokens.
    const r = await upstreamStopped(up.requests[0]);
    expect(r.aborted).toBe(true);
    expect(r.sent).toBeLessThan(TOKENS / 10);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('maxTokens 300: at most the held 300 tokens reach the client (reasoning counted), charged at most the hold', async () => {
    up.setScript(runaway([{ reasoning: 'thinking ' }]));
    const s = await credited();
    const res = await postStream(gw.app, s.cookie, chatBody(PAID, 'Write a lot', { requestId: 'budget-300', maxTokens: 300 }));
    const { body, meta } = await readStream(res);
    const text = body.replace(/<think>[\s\S]*?<\/think>/, '');
    expect(text.length).toBeLessThanOrEqual(299 * 4);
    expect(text.split(' tok').length - 1).toBeLessThanOrEqual(299);
    expect(text.split(' tok').length - 1).toBeGreaterThan(250);
    expect(meta).toMatchObject({ isPartial: true, error: replyLimitMessage(300), outputTokens: 300 });
    const { held, charged } = await holdAndCharge(`chat:${s.data.id}:budget-300`);
    expect(charged).toBeLessThanOrEqual(held);
    expect((await upstreamStopped(up.requests[0])).aborted).toBe(true);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('the same request again (a retry with the requestId) gets the same cut reply, not a second upstream call or charge', async () => {
    const s = await credited();
    const first = await readStream(await postStream(gw.app, s.cookie, chatBody(PAID, 'again', { requestId: 'budget-retry', maxTokens: 2 })));
    const again = await readStream(await postStream(gw.app, s.cookie, chatBody(PAID, 'again', { requestId: 'budget-retry', maxTokens: 2 })));
    expect(again.raw).toBe(first.raw);
    expect(up.requests).toHaveLength(1);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('an upstream that honours max_tokens ends as before: not cut, charged its usage', async () => {
    up.setScript({ steps: Array.from({ length: 5 }, () => ({ content: ' tok' })), usage: { prompt_tokens: 1, completion_tokens: 5 } });
    const s = await credited();
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody(PAID, 'five', { requestId: 'budget-honest', maxTokens: 5 })));
    expect(body).toBe(' tok'.repeat(5));
    expect(meta.isPartial).toBe(false);
    expect(meta.error).toBeUndefined();
    expect(meta.outputTokens).toBe(5);
    expect(meta.cost).toBe(0.000051); // 1 x $1 + 5 x $10 per 1M
    expect(up.requests[0]?.aborted).toBe(false);
  });
});

describe('POST /api/talk-to-gpt-multi with upstreams that ignore max_tokens', () => {
  it('each paid column stops at its held output, is charged at most its hold and marked cut; both upstreams are closed', async () => {
    const s = await credited();
    const res = await gw.app.request('/api/talk-to-gpt-multi', {
      method: 'POST',
      headers: { cookie: s.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ conversationUUID: 'c-1', models: [PAID, PAID_B], prompt: 'Hello', requestId: 'budget-multi', maxTokens: 3 }),
    });
    expect(res.status).toBe(200);
    const p = new MultiStreamParser(null);
    const events: MultiStreamEvent[] = [...p.push(new Uint8Array(await res.arrayBuffer())), ...p.finish()];
    for (const [i, model] of [PAID, PAID_B].entries()) {
      const text = events.filter((e) => e.kind === 'chunk' && e.modelId === model).map((e) => (e.kind === 'chunk' ? e.text : '')).join('');
      expect(text).toBe(' tok'.repeat(3));
      const meta = events.find((e) => e.kind === 'metadata' && e.modelId === model);
      expect(meta?.kind === 'metadata' ? meta.metadata : null).toMatchObject({ isPartial: true, error: replyLimitMessage(3), outputTokens: 3 });
      const { held, charged } = await holdAndCharge(`multi:${s.data.id}:budget-multi:${i}`);
      expect(charged).toBeGreaterThan(0n);
      expect(charged).toBeLessThanOrEqual(held);
    }
    await up.settled();
    expect(up.requests).toHaveLength(2);
    for (const r of up.requests) {
      expect(r.aborted).toBe(true);
      expect(r.sent).toBeLessThan(TOKENS / 10);
    }
    await expectLedgerBalanced(gw.db, s.data.id);
  });
});

describe('an image-capable chat model that ignores max_tokens', () => {
  it('relays whole lines up to the held output (an image counts its tokens), then stops and marks the reply cut', async () => {
    const image = (n: number) => ({ raw: chunkLine(IMAGE_MODEL, 'c1', [{ index: 0, delta: { images: [{ type: 'image_url', image_url: { url: `data:image/png;base64,iVBOR${n}` } }] }, finish_reason: null }]) });
    const steps: FakeStep[] = [{ content: 'A picture: ' }, image(1)];
    for (let i = 0; i < 200; i++) steps.push({ content: ' more' }, image(i + 2), { delayMs: 1 });
    up.setScript({ steps, usage: { prompt_tokens: 10, completion_tokens: 999_999 } });
    const s = await credited();
    const maxTokens = IMAGE_OUTPUT_TOKENS + 20;
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody(IMAGE_MODEL, 'Draw', { requestId: 'budget-image', maxTokens })));
    // Every line is whole JSON; one image got through, the second did not.
    const parser = new GeminiLineParser();
    const parts = [...parser.push(body), ...parser.end()];
    expect(body.endsWith('\n')).toBe(true);
    expect(parts.filter((x) => x.type === 'image')).toHaveLength(1);
    expect(meta).toMatchObject({ error: replyLimitMessage(maxTokens) });
    const { held, charged } = await holdAndCharge(`chat:${s.data.id}:budget-image`);
    expect(charged).toBeLessThanOrEqual(held);
    expect((await upstreamStopped(up.requests[0])).aborted).toBe(true);
  });
});
