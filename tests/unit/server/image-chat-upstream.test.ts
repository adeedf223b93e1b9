/**
 * A provider's image chat model (Gemini's image models, gpt-5-image: isImageChatModel) through the gateway: listed
 * with the image-lines capability, asked for images (`modalities`), its `delta.images` streamed as the JSON lines the
 * engine decodes (spec 000 section 7), and priced as any chat reply.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelsResponse } from '../../../src/protocol/api';
import { GeminiLineParser, IMAGE_LINES_CAPABILITY } from '../../../src/protocol/image-rules';
import { chunkLine, startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { chatBody, newSession, postStream, readStream, testGateway, type TestGateway } from './helpers';

const IMAGE_MODEL = 'google/gemini-2.5-flash-image';
const PLAIN_MODEL = 'google/gemini-2.5-flash';
// A picture of about 3 MB of base64, arriving in many socket chunks.
const PICTURE = 'iVBORw0KGgo'.padEnd(3_000_000, 'A');

let up: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  up = await startFakeUpstream(textReply('unused'));
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([
      { name: 'router', url: up.url, models: [IMAGE_MODEL, PLAIN_MODEL], pricing: { [IMAGE_MODEL]: { input: '0.3', output: '30' } } },
    ]),
  });
});
afterAll(async () => {
  await up.close();
  await gw.close();
});
beforeEach(() => {
  up.requests.length = 0;
});

describe('an upstream image chat model', () => {
  it('is listed with the image-lines capability; a plain model of the same provider is not', async () => {
    const s = await newSession(gw.app);
    const m = (await (await gw.app.request('/api/models', { headers: { cookie: s.cookie } })).json()) as ModelsResponse;
    expect(m.models.find((x) => x.id === IMAGE_MODEL)?.capabilities).toContain(IMAGE_LINES_CAPABILITY);
    expect(m.models.find((x) => x.id === PLAIN_MODEL)?.capabilities).not.toContain(IMAGE_LINES_CAPABILITY);
  });

  it('asks for images and streams text and picture as lines the engine decodes; the reply is charged', async () => {
    const image = chunkLine(IMAGE_MODEL, 'c1', [
      { index: 0, delta: { images: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PICTURE}` } }] }, finish_reason: null },
    ]);
    up.setScript({
      steps: [{ reasoning: 'planning' }, { content: 'A red ' }, { content: 'fox:' }, { raw: image }, { content: ' done.' }],
      usage: { prompt_tokens: 100, completion_tokens: 1290 },
    });
    const s = await newSession(gw.app);
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n, nanoRaw: 0n });
    const res = await postStream(gw.app, s.cookie, chatBody(IMAGE_MODEL, 'Draw a red fox'));
    expect(res.status).toBe(200);
    const { body, meta } = await readStream(res);
    expect(up.requests[0]?.body?.modalities).toEqual(['image', 'text']);
    const p = new GeminiLineParser();
    const parts = [...p.push(body), ...p.end()];
    expect(parts.filter((x) => x.type === 'text').map((x) => (x.type === 'text' ? x.text : '')).join('')).toBe('A red fox: done.');
    const pictures = parts.filter((x) => x.type === 'image');
    expect(pictures).toEqual([{ type: 'image', mimeType: 'image/png', data: PICTURE }]);
    // 100 × $0.3/M + 1290 × $30/M = $0.00003 + $0.0387
    expect(meta).toMatchObject({ model: IMAGE_MODEL, isPartial: false, cost: 0.03873, paymentSource: 'USD' });
  });

  it('a plain model of the same provider is asked for text only and relayed as it is', async () => {
    up.setScript(textReply('Just text.'));
    const s = await newSession(gw.app);
    const { body } = await readStream(await postStream(gw.app, s.cookie, chatBody(PLAIN_MODEL, 'hi')));
    expect(body).toBe('Just text.');
    expect(up.requests[0]?.body).not.toHaveProperty('modalities');
  });
});
