import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_FAILED, type GenerateImageResponse } from '../../../src/protocol/media';
import { FREE_FLUX_METADATA_KEY } from '../../../src/protocol/image-rules';
import { sniffImage } from '../../../src/server/media/png';
import { startFakeMedia, type FakeMedia } from './fake-media';
import { getSession } from './helpers';
import { mediaGateway } from './media-helpers';

let fake: FakeMedia;
beforeAll(async () => {
  fake = await startFakeMedia();
});
afterAll(() => fake.close());

const env = () => ({
  PARLEY_IMAGE_PROVIDERS: JSON.stringify([
    {
      name: 'fakeai',
      url: `${fake.url}/v1`,
      key: 'sk-test',
      models: ['gpt-image-1', 'flux-schnell', 'cheap-image', 'ghiblify'],
      pricing: { 'gpt-image-1': '0.04', 'flux-schnell': '0.003', 'cheap-image': '0.01' },
      imageToImage: ['gpt-image-1', 'ghiblify'],
    },
  ]),
});

function png(res: GenerateImageResponse, i = 0): Buffer {
  return Buffer.from(res.data?.[i]?.b64_json ?? '', 'base64');
}

describe('POST /api/generate-image, offline engine', () => {
  it('paints a real PNG, deterministic by prompt and seed, free, and lists the engine as not a model', async () => {
    const g = await mediaGateway({});
    const ask = async (seed: number) => (await (await g.post('/api/generate-image', { prompt: 'a blue ocean at night', model: 'parley-offline-image', conversationUUID: 'c1', seed, width: 320, height: 192 })).json()) as GenerateImageResponse;
    const a = await ask(7);
    const b = await ask(7);
    const c = await ask(8);
    expect(sniffImage(png(a))).toBe('image/png');
    expect(png(a).readUInt32BE(16)).toBe(320);
    expect(png(a).readUInt32BE(20)).toBe(192);
    expect(png(a).equals(png(b))).toBe(true);
    expect(png(a).equals(png(c))).toBe(false);
    expect(a.cost).toBe(0);
    const models = (await (await g.get('/api/models')).json()) as { models: { id: string; name: string; modality: string; offline: boolean; description: string }[] };
    const offline = models.models.find((m) => m.id === 'parley-offline-image');
    expect(offline).toMatchObject({ modality: 'image', offline: true });
    expect(offline?.description).toContain('Not an AI model');
    expect(models.models.some((m) => m.id === 'parley-offline-video' && m.modality === 'video')).toBe(true);
    await g.close();
  });

  it('grid model answers one 2x2 grid with quadrants and a task_id', async () => {
    const g = await mediaGateway({});
    const r = (await (await g.post('/api/generate-image', { prompt: 'castle', model: 'parley-offline-grid', conversationUUID: 'c1' })).json()) as GenerateImageResponse;
    expect(r.quadrants).toBe(true);
    expect(typeof r.task_id).toBe('string');
    expect(r.data).toHaveLength(1);
    expect(png(r).readUInt32BE(16)).toBe(512);
    await g.close();
  });

  it('refuses bad input with 4xx and a message', async () => {
    const g = await mediaGateway({});
    const base = { prompt: 'x', model: 'parley-offline-image', conversationUUID: 'c1' };
    const cases: [unknown, number, string][] = [
      [{ ...base, model: 'no-such-model' }, 400, 'Unknown image model: no-such-model'],
      [{ ...base, prompt: '   ' }, 400, 'Message is required'],
      [{ ...base, prompt: 'x'.repeat(4001) }, 400, 'prompt'],
      [{ ...base, nImages: 9 }, 400, 'nImages'],
      [{ ...base, imageDataUrl: 'data:text/html;base64,PGI+' }, 400, 'imageDataUrl'],
      [{ ...base, imageDataUrl: `data:image/png;base64,${Buffer.from('not a png').toString('base64')}` }, 400, 'not a PNG'],
      ['{not json', 400, 'not valid JSON'],
    ];
    for (const [body, status, text] of cases) {
      const res = await g.post('/api/generate-image', body);
      expect(res.status).toBe(status);
      expect(((await res.json()) as { message: string }).message).toContain(text);
    }
    await g.close();
  });

  it('explicit prompts need showExplicitContent: isNSFW and requiresExplicitMode, nothing generated', async () => {
    const g = await mediaGateway({});
    const off = (await (await g.post('/api/generate-image', { prompt: 'a nude statue', model: 'parley-offline-image', conversationUUID: 'c' })).json()) as GenerateImageResponse;
    expect(off).toEqual({ isNSFW: true, requiresExplicitMode: true });
    const on = (await (await g.post('/api/generate-image', { prompt: 'a nude statue', model: 'parley-offline-image', conversationUUID: 'c', showExplicitContent: true })).json()) as GenerateImageResponse;
    expect(on.isNSFW).toBe(true);
    expect(on.data).toHaveLength(1);
    await g.close();
  });
});

describe('POST /api/generate-image, OpenAI images adapter', () => {
  it('charges the price per image once and sends the key', async () => {
    fake.image = 'ok';
    const g = await mediaGateway(env());
    await g.credit(1_000_000n);
    const res = await g.post('/api/generate-openai-image', { prompt: 'a lighthouse', model: 'gpt-image-1', conversationUUID: 'c', nImages: 2 });
    expect(res.status).toBe(200);
    const r = (await res.json()) as GenerateImageResponse;
    expect(r.data).toHaveLength(2);
    expect(r.cost).toBeCloseTo(0.08);
    expect(r.paymentSource).toBe('USD');
    expect(await g.balance()).toBe(920_000n);
    const sent = fake.requests.at(-1);
    expect(sent?.path).toBe('/v1/images/generations');
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({ model: 'gpt-image-1', n: 2, size: '1024x1024', response_format: 'b64_json' });
    await g.close();
  });

  it('a provider failure or an answer that is not an image charges nothing and says so', async () => {
    const g = await mediaGateway(env());
    await g.credit(1_000_000n);
    for (const behaviour of ['wrong-type', 'error'] as const) {
      fake.image = behaviour;
      const res = await g.post('/api/generate-image', { prompt: 'p', model: 'gpt-image-1', conversationUUID: 'c' });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { message: string }).message).toBe(IMAGE_FAILED);
    }
    fake.image = 'policy';
    const refused = await g.post('/api/generate-image', { prompt: 'p', model: 'gpt-image-1', conversationUUID: 'c' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('content_policy_violation');
    expect(await g.balance()).toBe(1_000_000n);
    fake.image = 'url';
    const viaUrl = (await (await g.post('/api/generate-image', { prompt: 'p', model: 'cheap-image', conversationUUID: 'c' })).json()) as GenerateImageResponse;
    expect(sniffImage(png(viaUrl))).toBe('image/png');
    fake.image = 'ok';
    await g.close();
  });

  it('image-to-image goes to /images/edits; a model without it recommends one that has it', async () => {
    fake.image = 'ok';
    const g = await mediaGateway(env());
    await g.credit(1_000_000n);
    const input = `data:image/png;base64,${png((await (await g.post('/api/generate-image', { prompt: 'seed', model: 'parley-offline-image', conversationUUID: 'c', width: 64, height: 64 })).json()) as GenerateImageResponse).toString('base64')}`;
    const edit = await g.post('/api/generate-image', { prompt: 'make it red', model: 'gpt-image-1', conversationUUID: 'c', imageDataUrls: [input, input] });
    expect(edit.status).toBe(200);
    expect(fake.requests.at(-1)?.path).toBe('/v1/images/edits');
    expect(fake.requests.at(-1)?.contentType).toContain('multipart/form-data');
    expect(fake.requests.at(-1)?.body).toContain('name="image[]"');
    const five = await g.post('/api/generate-image', { prompt: 'x', model: 'gpt-image-1', conversationUUID: 'c', imageDataUrls: [input, input, input, input, input] });
    expect(five.status).toBe(400);
    const rec = (await (await g.post('/api/generate-image', { prompt: 'x', model: 'cheap-image', conversationUUID: 'c', imageDataUrl: input })).json()) as GenerateImageResponse;
    expect(rec.recommendedModel).toBe('gpt-image-1');
    expect(rec.recommendedModelName).toBe('gpt-image-1');
    expect(rec.explanation).toContain('does not take input images');
    expect(rec.data).toBeUndefined();
    await g.close();
  });

  it('ghiblify fills an empty prompt with Ghiblify', async () => {
    const g = await mediaGateway(env());
    const input = `data:image/png;base64,${png((await (await g.post('/api/generate-image', { prompt: 'seed', model: 'parley-offline-image', conversationUUID: 'c', width: 64, height: 64 })).json()) as GenerateImageResponse).toString('base64')}`;
    const res = await g.post('/api/generate-image', { prompt: '', model: 'ghiblify', conversationUUID: 'c', imageDataUrl: input });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)?.body).toMatch(/name="prompt"\r\n\r\nGhiblify\r\n/);
    await g.close();
  });

  it('parallel paid requests never spend more than the balance (holds before the provider)', async () => {
    fake.image = 'ok';
    const g = await mediaGateway(env());
    await g.credit(25_000n); // two images of 0.01
    const results = await Promise.all(Array.from({ length: 8 }, () => g.post('/api/generate-image', { prompt: 'p', model: 'cheap-image', conversationUUID: 'c' })));
    const statuses = results.map((r) => r.status).sort();
    const bodies = await Promise.all(results.filter((r) => r.status !== 200).map((r) => r.text()));
    expect(statuses.filter((s) => s === 200), `${statuses.join(',')} ${bodies.join(' ').slice(0, 600)}`).toHaveLength(2);
    expect(statuses.filter((s) => s === 402)).toHaveLength(6);
    expect(await g.balance()).toBe(5_000n);
    await g.close();
  });
});

describe("each image model's settings (shown as its controls)", () => {
  it('lists them per model: by family, by configuration, and the offline painters', async () => {
    const g = await mediaGateway({
      PARLEY_IMAGE_PROVIDERS: JSON.stringify([
        { name: 'fakeai', url: `${fake.url}/v1`, models: ['gpt-image-1', 'flux-schnell', 'sdxl'], settings: { sdxl: ['seed', 'guidance_scale', 'negative_prompt', 'resolution'] }, resolutions: { sdxl: ['512x512', '1024x1024'] } },
      ]),
    });
    const models = ((await (await g.get('/api/models')).json()) as { models: { id: string; imageSettings?: string[]; resolutions?: string[] }[] }).models;
    const of = (id: string) => models.find((m) => m.id === id);
    expect(of('gpt-image-1')).toMatchObject({ imageSettings: ['nImages', 'resolution'], resolutions: ['1024x1024', '1536x1024', '1024x1536'] });
    expect(of('flux-schnell')?.imageSettings).toEqual(['nImages', 'width', 'height', 'seed', 'negative_prompt']);
    expect(of('flux-schnell')?.resolutions).toBeUndefined();
    expect(of('sdxl')).toMatchObject({ imageSettings: ['seed', 'guidance_scale', 'negative_prompt', 'resolution'], resolutions: ['512x512', '1024x1024'] });
    expect(of('parley-offline-image')?.imageSettings).toEqual(['nImages', 'width', 'height', 'aspect_ratio', 'seed']);
    expect(of('parley-offline-grid')?.imageSettings).toEqual(['aspect_ratio', 'seed']);
    await g.close();
  });

  it('refuses a configuration naming a setting that does not exist', async () => {
    await expect(mediaGateway({ PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'x', url: `${fake.url}/v1`, models: ['m'], settings: { m: ['colour'] } }]) })).rejects.toThrow(/PARLEY_IMAGE_PROVIDERS/);
  });
});

describe('a requestId is bound to its image request (issue 5)', () => {
  it('a retry gets the first answer with no second generation or charge; parallel retries too; another body is 409; a failure is kept, a refusal frees it', async () => {
    fake.image = 'ok';
    const g = await mediaGateway(env());
    await g.credit(1_000_000n);
    const body = { prompt: 'a lighthouse at dusk', model: 'cheap-image', conversationUUID: 'c', requestId: 'image-request-0001', seed: 4 };
    const before = fake.requests.length;
    const all = await Promise.all([g.post('/api/generate-image', body), g.post('/api/generate-image', body), g.post('/api/generate-image', { ...body, showExplicitContent: true })]);
    expect(all.map((r) => r.status)).toEqual([200, 200, 200]);
    const answers = (await Promise.all(all.map((r) => r.json()))) as GenerateImageResponse[];
    expect(new Set(answers.map((a) => a.data?.[0]?.b64_json)).size).toBe(1);
    expect(answers.map((a) => a.runId)).toEqual(['image-request-0001', 'image-request-0001', 'image-request-0001']);
    const later = (await (await g.post('/api/generate-image', body)).json()) as GenerateImageResponse;
    expect(later.cost).toBeCloseTo(0.01);
    expect(fake.requests.length - before).toBe(1);
    expect(await g.balance()).toBe(990_000n);

    const other = await g.post('/api/generate-image', { ...body, prompt: 'a lighthouse at dawn' });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: string }).error).toBe('REQUEST_ID_REUSED');
    expect((await g.post('/api/generate-image', { ...body, model: 'gpt-image-1' })).status).toBe(409);

    // A generation that failed charged nothing; its retry gets the same failure, and the provider is not asked again.
    fake.image = 'error';
    const failing = { ...body, requestId: 'image-request-0002' };
    expect((await g.post('/api/generate-image', failing)).status).toBe(502);
    fake.image = 'ok';
    const asked = fake.requests.length;
    const retried = await g.post('/api/generate-image', failing);
    expect(retried.status).toBe(502);
    expect(((await retried.json()) as { message: string }).message).toBe(IMAGE_FAILED);
    expect(fake.requests.length).toBe(asked);
    expect(await g.balance()).toBe(990_000n);

    // One refused before the provider (no balance) frees its requestId: after a deposit the same request generates.
    const poor = await mediaGateway(env());
    const first = await poor.post('/api/generate-image', body);
    expect(first.status).toBe(402);
    await poor.credit(1_000_000n);
    expect((await poor.post('/api/generate-image', body)).status).toBe(200);
    await poor.close();
    await g.close();
  });

  it('an answer without a requestId still names its generation (runId)', async () => {
    const g = await mediaGateway({});
    const r = (await (await g.post('/api/generate-image', { prompt: 'a red barn', model: 'parley-offline-image', conversationUUID: 'c' })).json()) as GenerateImageResponse;
    expect(r.runId).toMatch(/^[0-9a-f-]{36}$/);
    await g.close();
  });
});

describe('flux-schnell: 10 free a day from the count:date metadata', () => {
  it('ten free, then paid or refused; a new date resets; a failure gives the use back', async () => {
    fake.image = 'ok';
    const clock = { now: Date.UTC(2025, 5, 1, 23, 0) };
    const g = await mediaGateway(env(), clock);
    const ask = () => g.post('/api/generate-image', { prompt: 'p', model: 'flux-schnell', conversationUUID: 'c' });
    for (let i = 0; i < 10; i++) {
      const res = await ask();
      const text = await res.text();
      expect(res.status, `free use ${i + 1}: ${text.slice(0, 300)}`).toBe(200);
      const r = JSON.parse(text) as GenerateImageResponse;
      expect(r.cost).toBe(0);
      expect(r.freeUsesLeft).toBe(9 - i);
    }
    expect((await getSession(g.app, g.session.cookie)).metadata[FREE_FLUX_METADATA_KEY]).toBe('10:2025-06-01');
    const refused = await ask();
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: string }).error).toBe('FREE_LIMIT_REACHED');
    await g.credit(1_000_000n);
    const paid = (await (await ask()).json()) as GenerateImageResponse;
    expect(paid.cost).toBeCloseTo(0.003);
    clock.now = Date.UTC(2025, 5, 2, 0, 5);
    fake.image = 'error';
    expect((await ask()).status).toBe(502);
    expect((await getSession(g.app, g.session.cookie)).metadata[FREE_FLUX_METADATA_KEY]).toBe('0:2025-06-02');
    fake.image = 'ok';
    const fresh = (await (await ask()).json()) as GenerateImageResponse;
    expect(fresh.cost).toBe(0);
    expect(fresh.freeUsesLeft).toBe(9);
    await g.close();
  });
});
