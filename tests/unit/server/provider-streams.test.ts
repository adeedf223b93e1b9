/**
 * Provider streams in each provider's documented format (tests/fixtures/streams/*.sse, expected.json), replayed as
 * the upstream byte for byte: whole, in odd pieces and one byte at a time, through the real gateway relay
 * (POST /api/stream-gpt) and the engine's stream parser (fed in the same pieces). Every chunking must give the reply
 * text, thinking, usage, charge and error the fixture documents.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyCostMicro } from '../../../src/server/money/amounts';
import { MultiStreamParser } from '../../../src/worker/rooms/multimodel/multi-stream';
import { ReplyStreamParser } from '../../../src/worker/rooms/replies/stream-parser';
import { startFakeUpstream, type FakeStep, type FakeUpstream } from './fake-upstream';
import { chatBody, newSession, postStream, testGateway, type TestGateway } from './helpers';

interface Expected {
  source: string;
  text: string;
  thinking: string;
  inputTokens?: number;
  outputTokens?: number;
  error?: string;
  isPartial?: boolean;
  model: string;
}

const DIR = join(__dirname, '../../fixtures/streams');
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as Record<string, Expected>;
const files = readdirSync(DIR).filter((f) => f.endsWith('.sse')).map((f) => f.slice(0, -4)).sort();

/** Input 1.5 USD and output 3 USD per 1M tokens (micro-USD per 1M). */
const PRICE = { inputMicroPerM: 1_500_000n, outputMicroPerM: 3_000_000n };

type Chunking = 'whole' | 'odd' | 'bytes';
const CHUNKINGS: Chunking[] = ['whole', 'odd', 'bytes'];
/** Odd piece sizes, cycled: pieces end inside JSON strings, multi-byte characters and line ends. */
const ODD = [1, 7, 2, 13, 3, 61, 5, 29];

function pieces(bytes: Uint8Array, how: Chunking): Uint8Array[] {
  if (how === 'whole') return [bytes];
  const out: Uint8Array[] = [];
  let k = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = how === 'bytes' ? 1 : (ODD[k++ % ODD.length] as number);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

let up: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  up = await startFakeUpstream({ steps: [] });
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([{ name: 'fixture', url: up.url, models: ['fixture-free', 'fixture-paid'], pricing: { 'fixture-paid': { input: '1.5', output: '3' } } }]),
  });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});

describe('provider streams in their documented formats', () => {
  it('every fixture has its expected reply', () => {
    expect(files.length).toBeGreaterThanOrEqual(18);
    for (const f of files) expect(expected[f], f).toBeDefined();
  });

  for (const name of files) {
    it(`${name}: the same reply whole, in odd pieces and byte by byte`, async () => {
      const want = expected[name] as Expected;
      const bytes = new Uint8Array(readFileSync(join(DIR, `${name}.sse`)));
      const s = await newSession(gw.app);
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 10_000_000n, nanoRaw: 0n });
      for (const how of CHUNKINGS) {
        const steps: FakeStep[] = pieces(bytes, how).map((raw) => ({ raw }));
        up.setScript({ bare: true, steps, end: 'end' });
        const res = await postStream(gw.app, s.cookie, chatBody('fixture-paid', 'hi'));
        expect(res.status, `${name} ${how}`).toBe(200);
        const body = new Uint8Array(await res.arrayBuffer());
        const parser = new ReplyStreamParser();
        for (const p of pieces(body, how)) {
          parser.push(p.slice());
          void parser.text; // read as the engine does, piece by piece
        }
        parser.finish();
        const label = `${name} (${how})`;
        expect(parser.metadataError, label).toBeNull();
        expect(parser.text, label).toBe(want.text);
        expect(parser.thinking, label).toBe(want.thinking);
        const meta = parser.metadata;
        expect(meta, label).not.toBeNull();
        expect(meta?.model, label).toBe(want.model);
        expect(meta?.error, label).toBe(want.error);
        expect(meta?.isPartial, label).toBe(want.isPartial ?? false);
        if (want.inputTokens !== undefined && want.outputTokens !== undefined) {
          // Charged exactly for the usage the provider reported, wherever it put it.
          expect(meta?.inputTokens, label).toBe(want.inputTokens);
          expect(meta?.outputTokens, label).toBe(want.outputTokens);
          expect(Math.round((meta?.cost ?? 0) * 1e6), label).toBe(Number(replyCostMicro(PRICE, want.inputTokens, want.outputTokens)));
          expect(meta?.paymentSource, label).toBe('USD');
        }
      }
    });
  }

  // The multi-model route relays the same provider events in its lines; each column is read by the same parser.
  for (const name of ['deepseek-reasoning-with-tags', 'mistral-magistral', 'groq-x-groq-usage', 'openai-tool-call-only']) {
    it(`${name}: the same reply in a multi-model column`, async () => {
      const want = expected[name] as Expected;
      const s = await newSession(gw.app);
      up.setScript({ bare: true, steps: pieces(new Uint8Array(readFileSync(join(DIR, `${name}.sse`))), 'odd').map((raw) => ({ raw })), end: 'end' });
      const res = await gw.app.request('/api/talk-to-gpt-multi', {
        method: 'POST',
        headers: { cookie: s.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ conversationUUID: 'c-1', models: ['fixture-free'], prompt: 'hi', isMultiModel: true }),
      });
      expect(res.status).toBe(200);
      const lines = new MultiStreamParser(null);
      const events = [...lines.push(new Uint8Array(await res.arrayBuffer())), ...lines.finish()];
      const parser = new ReplyStreamParser();
      for (const e of events) if (e.kind === 'chunk') parser.push(e.text);
      parser.finish();
      expect(parser.text).toBe(want.text);
      expect(parser.thinking).toBe(want.thinking);
      const meta = events.find((e) => e.kind === 'metadata');
      expect(meta && meta.kind === 'metadata' ? meta.metadata.inputTokens : null).toBe(want.inputTokens);
    });
  }
});
