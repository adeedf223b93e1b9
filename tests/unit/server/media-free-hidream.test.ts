/**
 * The feed's "10 free Hidream images per day" (spec 001 section 6): a configured, priced Hidream model has its own
 * free daily slot beside flux-schnell's, counted in its own 'count:date' session metadata value and on the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateImageResponse } from '../../../src/protocol/media';
import { FREE_FLUX_METADATA_KEY, FREE_HIDREAM_QUOTA, freeImageQuota } from '../../../src/protocol/image-rules';
import { startFakeMedia, type FakeMedia } from './fake-media';
import { getSession } from './helpers';
import { mediaGateway } from './media-helpers';

let fake: FakeMedia;
beforeAll(async () => {
  fake = await startFakeMedia();
});
afterAll(() => fake.close());

describe('the free Hidream slot', () => {
  it('ten free Hidream images a day, then refused without a balance; flux-schnell keeps its own ten', { timeout: 300_000 }, async () => {
    expect(freeImageQuota('HiDream-I1-fast')).toBe(FREE_HIDREAM_QUOTA);
    expect(freeImageQuota('cheap-image')).toBeNull();
    fake.image = 'ok';
    const clock = { now: Date.UTC(2025, 7, 1, 12, 0) };
    const g = await mediaGateway(
      { PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, models: ['HiDream-I1-fast', 'flux-schnell'], pricing: { 'HiDream-I1-fast': '0.01', 'flux-schnell': '0.003' } }]) },
      clock,
    );
    try {
      const ask = (model: string) => g.post('/api/generate-image', { prompt: 'a lake', model, conversationUUID: 'c' });
      for (let i = 0; i < 10; i++) {
        const res = await ask('HiDream-I1-fast');
        const text = await res.text();
        expect(res.status, `free use ${i + 1}: ${text.slice(0, 300)}`).toBe(200);
        expect(JSON.parse(text) as GenerateImageResponse).toMatchObject({ cost: 0, freeUsesLeft: 9 - i });
      }
      const meta = (await getSession(g.app, g.session.cookie)).metadata;
      expect(meta.hidreamFreeUses).toBe('10:2025-08-01');
      expect(meta[FREE_FLUX_METADATA_KEY]).toBeUndefined();
      const refused = await ask('HiDream-I1-fast');
      expect(refused.status).toBe(402);
      expect(await refused.json()).toMatchObject({ error: 'FREE_LIMIT_REACHED', message: 'Your 10 free Hidream images for today are used up. Add funds to keep generating.' });
      // flux-schnell's slot is its own.
      expect((await (await ask('flux-schnell')).json()) as GenerateImageResponse).toMatchObject({ cost: 0, freeUsesLeft: 9 });
      // Paid past the ten once there is a balance.
      await g.credit(1_000_000n);
      const paid = (await (await ask('HiDream-I1-fast')).json()) as GenerateImageResponse;
      expect(paid.cost).toBeCloseTo(0.01);
    } finally {
      await g.close();
    }
  });
});
