import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_MODEL_ID } from '../../../src/server/providers/offline';
import { FAILED_TO_START_MULTI } from '../../../src/server/chat/talk-to-gpt-multi';
import { WEB_NOT_RUN_NOTICE } from '../../../src/protocol/web';
import { MultiStreamParser, type MultiStreamEvent } from '../../../src/worker/rooms/multimodel/multi-stream';
import { openAiError, startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { getSession, newSession, testGateway, type TestGateway } from './helpers';

let up: FakeUpstream;
let gw: TestGateway;
const PRICING = { 'paid-model': { input: '1.5', output: '3' } };

beforeAll(async () => {
  // 'broken-model' is refused upstream, 'long-model' answers 413; every other model answers with its own name.
  up = await startFakeUpstream((req) =>
    req.body?.model === 'broken-model'
      ? { error: { status: 503, body: openAiError('Overloaded', 'server_error') } }
      : req.body?.model === 'long-model'
        ? { error: { status: 413, body: openAiError('Context memory is indexing 9000 tokens', 'request_too_large') } }
        : textReply(`Answer from ${req.body?.model ?? '?'}.`, { usage: { prompt_tokens: 1000, completion_tokens: 1000 } }),
  );
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([
      { name: 'fake', url: up.url, models: ['free-model', 'other-model', 'broken-model', 'paid-model', 'long-model'], pricing: PRICING },
    ]),
    PARLEY_NANO_USD_PRICE: '1',
  });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});

function post(cookie: string, body: unknown): Promise<Response> {
  return Promise.resolve(
    gw.app.request('/api/talk-to-gpt-multi', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
  );
}
const request = (models: string[], extra: Record<string, unknown> = {}) => ({ conversationUUID: 'c-1', models, prompt: 'Hello', isMultiModel: true, ...extra });

async function lines(res: Response): Promise<MultiStreamEvent[]> {
  const p = new MultiStreamParser(null);
  return [...p.push(new Uint8Array(await res.arrayBuffer())), ...p.finish()];
}
const textOf = (events: MultiStreamEvent[], id: string) =>
  events.filter((e): e is Extract<MultiStreamEvent, { kind: 'chunk' }> => e.kind === 'chunk' && e.modelId === id).map((e) => e.text).join('');

describe('POST /api/talk-to-gpt-multi', () => {
  it('streams every model as interleavable NDJSON lines, each ending with metadata then complete', async () => {
    const s = await newSession(gw.app);
    const res = await post(s.cookie, request(['free-model', 'other-model', OFFLINE_MODEL_ID]));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const events = await lines(res);
    expect(events.some((e) => e.kind === 'malformed')).toBe(false);
    expect(textOf(events, 'free-model')).toBe('Answer from free-model.');
    expect(textOf(events, 'other-model')).toBe('Answer from other-model.');
    expect(textOf(events, OFFLINE_MODEL_ID).length).toBeGreaterThan(0);
    for (const id of ['free-model', 'other-model', OFFLINE_MODEL_ID]) {
      const own = events.filter((e) => 'modelId' in e && e.modelId === id);
      expect(own.at(-1)).toEqual({ kind: 'complete', modelId: id });
      expect(own.at(-2)).toMatchObject({ kind: 'metadata', modelId: id, metadata: { cost: 0, isPartial: false } });
    }
  });

  it("a model named with ':online' answers as its base model, and its metadata says no search ran here", async () => {
    const s = await newSession(gw.app);
    const events = await lines(await post(s.cookie, request(['free-model:online', 'other-model'])));
    expect(textOf(events, 'free-model:online')).toBe('Answer from free-model.');
    const meta = (id: string) => events.find((e): e is Extract<MultiStreamEvent, { kind: 'metadata' }> => e.kind === 'metadata' && e.modelId === id)?.metadata;
    expect(meta('free-model:online')?.webNotice).toBe(WEB_NOT_RUN_NOTICE);
    expect(meta('other-model')?.webNotice).toBeUndefined();
  });

  it('one failing model does not stop the others: its error line, then the others answer', async () => {
    const s = await newSession(gw.app);
    const res = await post(s.cookie, request(['free-model', 'broken-model']));
    expect(res.status).toBe(200);
    const events = await lines(res);
    expect(events).toContainEqual({ kind: 'error', modelId: 'broken-model', error: 'Overloaded', status: 503, code: expect.any(String) });
    expect(events.filter((e) => 'modelId' in e && e.modelId === 'broken-model').at(-1)).toEqual({ kind: 'complete', modelId: 'broken-model' });
    expect(textOf(events, 'free-model')).toBe('Answer from free-model.');
  });

  it("a provider's 413 is CONTEXT_TOO_LONG in the model's line, and the whole answer's when no model starts", async () => {
    const s = await newSession(gw.app);
    const events = await lines(await post(s.cookie, request(['free-model', 'long-model'])));
    expect(events).toContainEqual({ kind: 'error', modelId: 'long-model', error: 'Context memory is indexing 9000 tokens', status: 413, code: 'CONTEXT_TOO_LONG' });
    const res = await post(s.cookie, request(['long-model']));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'CONTEXT_TOO_LONG', models: [{ modelId: 'long-model', status: 413, error: 'CONTEXT_TOO_LONG' }] });
  });

  it("answers 'Failed to start multi-model stream' when no model starts", async () => {
    const s = await newSession(gw.app);
    const res = await post(s.cookie, request(['broken-model']));
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; message: string; models: { modelId: string; status: number }[] };
    expect(body.message).toBe(FAILED_TO_START_MULTI);
    expect(body.models).toEqual([expect.objectContaining({ modelId: 'broken-model', status: 503 })]);
  });

  it('charges each model on its own through a hold, and a 402 with the required amount when none can pay', async () => {
    const poor = await newSession(gw.app);
    const refused = await post(poor.cookie, request(['paid-model']));
    expect(refused.status).toBe(402);
    const body = (await refused.json()) as { error: string; requiredBalance: string; requiredUsd: string };
    expect(body.error).toBe('INSUFFICIENT_BALANCE');
    expect(Number(body.requiredUsd)).toBeGreaterThan(0);

    const rich = await newSession(gw.app);
    await gw.ledger.credit(rich.data.id, { key: `seed:${rich.data.id}`, usdMicro: 5_000_000n });
    const res = await post(rich.cookie, request(['paid-model', 'free-model'], { requestId: 'req-multi-1' }));
    const events = await lines(res);
    const meta = events.filter((e): e is Extract<MultiStreamEvent, { kind: 'metadata' }> => e.kind === 'metadata');
    const paid = meta.find((m) => m.modelId === 'paid-model')?.metadata;
    // 1000 input tokens at 1.5 USD/M + 1000 output tokens at 3 USD/M = 0.0045 USD.
    expect(paid?.cost).toBeCloseTo(0.0045, 6);
    expect(meta.find((m) => m.modelId === 'free-model')?.metadata.cost).toBe(0);
    const after = await getSession(gw.app, rich.cookie);
    expect(Number(after.usd_balance)).toBeCloseTo(5 - 0.0045, 6);
    expect(after.numReplies).toBe(2);
  });

  it('a paid model the balance cannot hold, beside a free one: its error line names the amount it needs', async () => {
    const poor = await newSession(gw.app);
    const res = await post(poor.cookie, request(['free-model', 'paid-model']));
    expect(res.status).toBe(200);
    const events = await lines(res);
    const refused = events.find((e): e is Extract<MultiStreamEvent, { kind: 'error' }> => e.kind === 'error' && e.modelId === 'paid-model');
    expect(refused).toMatchObject({ status: 402, code: 'INSUFFICIENT_BALANCE' });
    // The amounts the spec's 402 notice shows (requiredBalance in XNO, and USD), the same as in its message.
    expect(Number(refused?.requiredUsd)).toBeGreaterThan(0);
    expect(Number(refused?.requiredBalance)).toBeGreaterThan(0);
    expect(refused?.error).toBe(`Insufficient balance: paid-model needs ${refused?.requiredUsd} USD or ${refused?.requiredBalance} XNO available`);
    expect(textOf(events, 'free-model')).toBe('Answer from free-model.');
  });

  it('refuses bad input with 400: a 5th extra model, duplicates, unknown models, malformed bodies', async () => {
    const s = await newSession(gw.app);
    const bad: unknown[] = [
      request(['free-model', 'other-model', 'paid-model', 'broken-model', OFFLINE_MODEL_ID, 'x-model']),
      request(['free-model', 'free-model']),
      request([]),
      request(['free-model'], { prompt: '' }),
      request(['free-model'], { modelPayloads: [{ modelIndex: 0, model: 'other-model', messages: [{ role: 'user', content: 'hi' }] }] }),
      request(['free-model'], { temperature: 9 }),
      '{"models":',
      'null',
    ];
    for (const b of bad) {
      const res = await post(s.cookie, b);
      expect(res.status, JSON.stringify(b)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('BAD_REQUEST');
    }
    const tooMany = await post(s.cookie, bad[0]);
    expect(((await tooMany.json()) as { message: string }).message).toContain('At most 4 additional models');
    const unknown = await post(s.cookie, request(['free-model', 'no-such-model']));
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toBe('UNKNOWN_MODEL');
  });

  it('sends each model its own messages from modelPayloads', async () => {
    const s = await newSession(gw.app);
    up.requests.length = 0;
    const res = await post(s.cookie, {
      conversationUUID: 'c-2',
      models: ['free-model', 'other-model'],
      modelPayloads: [
        { modelIndex: 0, model: 'free-model', messages: [{ role: 'user', content: 'first' }] },
        { modelIndex: 1, model: 'other-model', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'second' }] },
      ],
    } satisfies Record<string, unknown>);
    await lines(res);
    const byModel = new Map(up.requests.map((r) => [r.body?.model, r.body?.messages]));
    expect(byModel.get('free-model')).toEqual([{ role: 'user', content: 'first' }]);
    expect(byModel.get('other-model')).toEqual([{ role: 'system', content: 'sys' }, { role: 'user', content: 'second' }]);
  });
});
