import { describe, expect, it } from 'vitest';
import { SUGGESTION_COUNTS, type SuggestionsResponse } from '../../../src/protocol/web';
import { GRADIENT, loadSuggestions, pickRandom } from '../../../src/server/suggestions/route';
import { webGateway } from './helpers';

describe('GET /api/suggestions', () => {
  it('answers 20 random text prompts, 15 image (with model, category, resolution) and 15 video', async () => {
    const gw = await webGateway({});
    try {
      const get = async (kind: string) => (await (await gw.get(`/api/suggestions?kind=${kind}`)).json()) as SuggestionsResponse;
      const text = await get('text');
      expect(text.suggestions).toHaveLength(20);
      expect(new Set(text.suggestions.map((s) => s.id)).size).toBe(20);
      for (const s of text.suggestions) {
        expect(s.title.length).toBeGreaterThan(0);
        expect(s.prompt.length).toBeGreaterThan(0);
        expect(s.gradient).toMatch(GRADIENT);
      }
      const image = await get('image');
      expect(image.suggestions).toHaveLength(15);
      for (const s of image.suggestions) expect(s).toMatchObject({ model: expect.any(String), category: expect.any(String), resolution: expect.stringMatching(/^\d+x\d+$/) });
      expect((await get('video')).suggestions).toHaveLength(15);
      // Random: two answers of 20 out of the pool differ in order or content (30 entries: the odds of equal are nil).
      const again = await get('text');
      expect(again.suggestions.map((s) => s.id)).not.toEqual(text.suggestions.map((s) => s.id));
      const bad = await gw.get('/api/suggestions?kind=audio');
      expect(bad.status).toBe(400);
    } finally {
      await gw.close();
    }
  });

  it('the data files hold at least the fetched number of valid entries', () => {
    const sets = loadSuggestions();
    for (const kind of ['text', 'image', 'video'] as const) expect(sets[kind].length).toBeGreaterThanOrEqual(SUGGESTION_COUNTS[kind].fetched);
  });

  it('pickRandom returns distinct entries', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const picked = pickRandom(items, 20);
    expect(new Set(picked).size).toBe(20);
    expect(pickRandom([1, 2], 5).sort()).toEqual([1, 2]);
  });
});
