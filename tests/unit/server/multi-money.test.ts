/**
 * Issue 5, items 2 and 3, on the multi-model route: each model is its own paid call (a hold per model), and the
 * requestId is bound to its request as a chat reply's is. Before, a multi-model requestId reused on a paid model
 * found its earlier hold or $0 charge under the same key, and the new reply was delivered for nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MultiStreamParser, type MultiStreamEvent } from '../../../src/worker/rooms/multimodel/multi-stream';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { getSession, newSession, testGateway, type TestGateway, type TestSession } from './helpers';
import { expectLedgerBalanced } from './money-checks';

let up: FakeUpstream;
let gw: TestGateway;
const PRICING = { 'paid-a': { input: '1.5', output: '3' }, 'paid-b': { input: '1.5', output: '3' } };

beforeAll(async () => {
  up = await startFakeUpstream((req) => textReply(`Answer from ${req.body?.model ?? '?'}.`, { usage: { prompt_tokens: 1000, completion_tokens: 1000 }, delayMs: 20 }));
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([{ name: 'fake', url: up.url, models: ['free-model', 'paid-a', 'paid-b'], pricing: PRICING }]),
    PARLEY_NANO_USD_PRICE: '1',
    PARLEY_STALL_MS: '10000',
  });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});
beforeEach(() => {
  up.requests.length = 0;
});

function post(cookie: string, body: unknown): Promise<Response> {
  return Promise.resolve(
    gw.app.request('/api/talk-to-gpt-multi', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
}
const request = (models: string[], requestId: string, extra: Record<string, unknown> = {}) => ({ conversationUUID: 'c-1', models, prompt: 'Hello', requestId, ...extra });

async function lines(res: Response): Promise<MultiStreamEvent[]> {
  const p = new MultiStreamParser(null);
  return [...p.push(new Uint8Array(await res.arrayBuffer())), ...p.finish()];
}
const metadataOf = (events: MultiStreamEvent[]) => events.filter((e): e is Extract<MultiStreamEvent, { kind: 'metadata' }> => e.kind === 'metadata');

async function credited(usdMicro: bigint): Promise<TestSession> {
  const s = await newSession(gw.app);
  await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro });
  return s;
}

describe('multi-model requestId binding', () => {
  it('a requestId first used on a free model cannot buy paid replies: 409, no upstream call, no charge', async () => {
    const s = await credited(1_000_000n);
    const first = await lines(await post(s.cookie, request(['free-model'], 'req-multi-bind-01')));
    expect(metadataOf(first)[0]?.metadata.cost).toBe(0);
    const reused = await post(s.cookie, request(['paid-a', 'paid-b'], 'req-multi-bind-01'));
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as { error: string }).error).toBe('REQUEST_ID_REUSED');
    await up.settled();
    expect(up.requests).toHaveLength(1);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('1.000000');
  });

  it('the same multi-model request again is refused: each model is asked and charged once', async () => {
    const s = await credited(1_000_000n);
    const body = request(['paid-a', 'paid-b'], 'req-multi-again-1');
    const first = metadataOf(await lines(await post(s.cookie, body)));
    // 1000 x 1.5 + 1000 x 3 = $0.0045 per model
    expect(first.map((m) => m.metadata.cost)).toEqual([0.0045, 0.0045]);
    for (let i = 0; i < 3; i++) {
      const again = await post(s.cookie, body);
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: string }).error).toBe('REQUEST_ALREADY_ANSWERED');
    }
    await up.settled();
    expect(up.requests).toHaveLength(2);
    expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.991000');
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('a multi-model request refused for the balance frees its requestId for a retry after a credit', async () => {
    const s = await newSession(gw.app);
    const body = request(['paid-a'], 'req-multi-402-001', { maxTokens: 10 });
    expect((await post(s.cookie, body)).status).toBe(402);
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 100_000n });
    const retry = metadataOf(await lines(await post(s.cookie, body)));
    // The upstream reports 1000 + 1000 tokens; the hold (2 x 1.5 + 10 x 3 = 33 micro-dollars) is the most it costs.
    expect(retry[0]?.metadata.cost).toBe(0.000033);
  });
});

describe('multi-model holds under concurrency', () => {
  it('$0.000011 and 20 parallel requests of two paid models: no model reply unpaid, balance change = sum of charges', async () => {
    // Each model holds 1 x 1.5 + 1 x 3 = 5 micro-dollars with maxTokens 1; the paid-use threshold is 10.
    // One token each: upstreams that honour max_tokens (one past it would be cut, reply-budget.test.ts).
    up.setScript(() => textReply('Tiny', { usage: { prompt_tokens: 1, completion_tokens: 1 }, delayMs: 50 }));
    const s = await credited(11n);
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => post(s.cookie, request(['paid-a', 'paid-b'], `req-multi-tiny-${i}`, { maxTokens: 1 }))));
    let delivered = 0;
    let charged = 0n;
    for (const res of all) {
      if (res.status === 402) continue;
      expect(res.status).toBe(200);
      for (const m of metadataOf(await lines(res))) {
        if (m.metadata.error !== undefined) continue; // refused inside the stream (402 line): nothing delivered
        delivered++;
        expect(m.metadata.cost, 'a delivered reply is paid').toBeGreaterThan(0);
        expect(m.metadata.billingError).toBeUndefined();
        charged += BigInt(Math.round((m.metadata.cost ?? 0) * 1e6));
      }
    }
    expect(delivered).toBe(1); // 11 - 5 = 6 left, under the threshold for a second hold
    expect(charged).toBe(5n);
    const after = await getSession(gw.app, s.cookie);
    expect(after.usd_balance).toBe('0.000006');
    await up.settled();
    expect(up.requests).toHaveLength(1);
    const open = await gw.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_holds WHERE session_id = $1 AND status = 'held'`, [s.data.id]);
    expect(open[0]?.n).toBe('0');
    await expectLedgerBalanced(gw.db, s.data.id);
  });
});
