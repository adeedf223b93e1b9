/** Spec 000 section 9 "Suggestions: 20 models fetched, 15 used": GET /api/suggestions?kind=models and the view's cut. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_SUGGESTION_COUNTS, rankModelSuggestions, shownModelSuggestions, type ModelSuggestionsResponse } from '../../../src/protocol/web';
import { newSession, testGateway, type TestGateway } from './helpers';

const MANY = Array.from({ length: 30 }, (_, i) => `model-${String(i + 1).padStart(2, '0')}`);
let gw: TestGateway;
beforeAll(async () => {
  gw = await testGateway({
    PARLEY_PROVIDERS: JSON.stringify([
      { name: 'many', url: 'http://127.0.0.1:9/v1', models: [...MANY, 'gpt-4o', 'chatgpt-4o-latest'], pricing: Object.fromEntries(MANY.slice(0, 10).map((m) => [m, { input: '1', output: '2' }])) },
    ]),
  });
});
afterAll(async () => {
  await gw.close();
});

describe('model suggestions', () => {
  it('the counts are the spec\'s: 20 fetched, 15 used', () => {
    expect(MODEL_SUGGESTION_COUNTS).toEqual({ fetched: 20, used: 15 });
  });

  it('GET /api/suggestions?kind=models answers 20 text models: the default first, then the free ones', async () => {
    const s = await newSession(gw.app);
    const res = await gw.app.request('/api/suggestions?kind=models', { headers: { cookie: s.cookie } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ModelSuggestionsResponse;
    expect(body.kind).toBe('models');
    expect(body.models).toHaveLength(20);
    expect(new Set(body.models).size).toBe(20);
    expect(body.models[0]).toBe('chatgpt-4o-latest');
    // model-01..10 are paid: the free ones come before them.
    expect(body.models.slice(1, 20)).toEqual([...MANY.slice(10), 'gpt-4o'].slice(0, 19));
  });

  it('the view shows the first 15 still in the catalogue', () => {
    const fetched = Array.from({ length: 20 }, (_, i) => `m${i}`);
    expect(shownModelSuggestions(fetched, new Set(fetched))).toEqual(fetched.slice(0, 15));
    const offered = new Set(fetched.filter((id) => id !== 'm3'));
    expect(shownModelSuggestions(fetched, offered)).toEqual(fetched.filter((id) => id !== 'm3').slice(0, 15));
    expect(rankModelSuggestions([{ id: 'img', modality: 'image', free: true, capabilities: [] }, { id: 'p', modality: 'text', free: false, capabilities: ['vision'] }, { id: 'q', modality: 'text', free: false, capabilities: [] }], 'x', 20)).toEqual(['p', 'q']);
  });
});
