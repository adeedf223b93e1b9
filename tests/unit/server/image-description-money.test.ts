/**
 * POST /api/image-description with a priced vision model pays through the paid-call path of every paid route
 * (src/server/money/paid-call.ts, `withHold`): a hold reserved before the upstream call, settled at the actual
 * cost, released when the upstream fails.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PNG } from 'pngjs';
import * as paidCall from '../../../src/server/money/paid-call';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { newSession, testGateway, type TestGateway } from './helpers';

vi.mock('../../../src/server/money/paid-call', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/server/money/paid-call')>();
  return { ...original, withHold: vi.fn(original.withHold) };
});

function pngDataUrl(w: number, h: number): string {
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) png.data.set([0, 0, 255, 255], i * 4);
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

let upstream: FakeUpstream;
let gw: TestGateway;
beforeAll(async () => {
  upstream = await startFakeUpstream(textReply('A blue square.', { usage: { prompt_tokens: 900, completion_tokens: 5 } }), { models: ['gpt-4o'] });
  gw = await testGateway({ PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'gpt-4o', PARLEY_UPSTREAM_PRICING: '{"gpt-4o":{"input":"2.50","output":"10"}}' });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  vi.mocked(paidCall.withHold).mockClear();
  upstream.setScript(textReply('A blue square.', { usage: { prompt_tokens: 900, completion_tokens: 5 } }));
});

async function describeImage(cookie: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await gw.app.request('/api/image-description', {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', image: pngDataUrl(4, 4) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('image description: a paid call like every other', () => {
  it('reserves a hold through withHold before the upstream call and settles it at the actual cost', async () => {
    const s = await newSession(gw.app);
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
    const r = await describeImage(s.cookie);
    expect(r).toMatchObject({ status: 200, body: { description: 'A blue square.', model: 'gpt-4o' } });
    expect(paidCall.withHold).toHaveBeenCalledTimes(1);
    const call = vi.mocked(paidCall.withHold).mock.calls[0]?.[2];
    expect(call?.key).toMatch(new RegExp(`^image-description:${s.data.id}:`));
    expect(call?.note).toBe('image-description gpt-4o');
    const holds = await gw.ledger.holds(s.data.id);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({ key: call?.key, status: 'settled', settledUsdMicro: 2_300n });
    // The hold covered more than the call cost: the image allowance and the whole output budget.
    expect(holds[0]!.maxUsdMicro > 2_300n).toBe(true);
    // 900 input tokens at $2.50/M + 5 output at $10/M = 2250 + 50 micro-dollars.
    expect((await gw.ledger.balance(s.data.id)).usdMicro).toBe(1_000_000n - 2_300n);
  });

  it('an upstream failure releases the hold: 502, nothing charged', async () => {
    const s = await newSession(gw.app);
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
    upstream.setScript({ error: { status: 500, body: { error: { message: 'upstream broke' } } } });
    const r = await describeImage(s.cookie);
    expect(r).toMatchObject({ status: 502, body: { error: 'DESCRIPTION_FAILED' } });
    expect(paidCall.withHold).toHaveBeenCalledTimes(1);
    const holds = await gw.ledger.holds(s.data.id);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({ status: 'released', settledUsdMicro: 0n });
    expect((await gw.ledger.balance(s.data.id)).usdMicro).toBe(1_000_000n);
  });

  it('a balance that cannot cover the hold gets 402 with what it needs, before any upstream call', async () => {
    const s = await newSession(gw.app);
    const before = upstream.requests.length;
    const r = await describeImage(s.cookie);
    expect(r).toMatchObject({ status: 402, body: { error: 'INSUFFICIENT_BALANCE' } });
    expect(typeof r.body.requiredUsd).toBe('string');
    expect(typeof r.body.requiredBalance).toBe('string');
    expect(upstream.requests.length).toBe(before);
    expect(await gw.ledger.holds(s.data.id)).toHaveLength(0);
  });
});
