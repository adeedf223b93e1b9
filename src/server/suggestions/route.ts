/**
 * GET /api/suggestions?kind=text|image|video: random starter prompts for an empty conversation (spec 000 sections
 * 1 and 9). The set is data in the repository (./data/*.json), checked once when the gateway starts: a bad entry
 * stops it, like a bad environment variable. Each answer is a fresh random choice of SUGGESTION_COUNTS[kind].fetched.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import { z } from 'zod';
import { MODEL_SUGGESTION_COUNTS, rankModelSuggestions, SUGGESTION_COUNTS, type ModelSuggestionsResponse, type Suggestion, type SuggestionKind, type SuggestionsResponse } from '../../protocol/web';
import { type RouteContext } from '../context';
import { jsonError, type AppEnv } from '../http';

/** Two or three hex colours at an angle: nothing else may reach the view's style attribute. */
export const GRADIENT = /^linear-gradient\(\d{1,3}deg, #[0-9a-f]{6}, #[0-9a-f]{6}(, #[0-9a-f]{6})?\)$/;

const base = {
  id: z.string().regex(/^[a-z0-9-]{1,80}$/),
  title: z.string().min(1).max(60),
  prompt: z.string().min(1).max(2000),
  gradient: z.string().regex(GRADIENT),
};
const TextSchema = z.strictObject(base);
const ImageSchema = z.strictObject({ ...base, model: z.string().min(1).max(100), category: z.string().min(1).max(40), resolution: z.string().regex(/^\d{2,4}x\d{2,4}$/) });

const KINDS: readonly SuggestionKind[] = ['text', 'image', 'video'];

export function loadSuggestions(): Record<SuggestionKind, Suggestion[]> {
  const read = (kind: SuggestionKind): Suggestion[] => {
    const raw: unknown = JSON.parse(readFileSync(new URL(`./data/${kind}.json`, import.meta.url), 'utf8'));
    const parsed = z.array(kind === 'image' ? ImageSchema : TextSchema).safeParse(raw);
    if (!parsed.success) throw new Error(`src/server/suggestions/data/${kind}.json is not valid: ${parsed.error.issues[0]?.message ?? ''}`);
    if (parsed.data.length < SUGGESTION_COUNTS[kind].fetched) throw new Error(`src/server/suggestions/data/${kind}.json needs at least ${SUGGESTION_COUNTS[kind].fetched} entries`);
    if (new Set(parsed.data.map((s) => s.id)).size !== parsed.data.length) throw new Error(`src/server/suggestions/data/${kind}.json repeats an id`);
    return parsed.data;
  };
  return { text: read('text'), image: read('image'), video: read('video') };
}

/** `n` distinct entries in random order (a partial Fisher-Yates shuffle with crypto randomness). */
export function pickRandom<T>(items: readonly T[], n: number): T[] {
  const pool = [...items];
  const count = Math.min(n, pool.length);
  for (let i = 0; i < count; i++) {
    const j = i + randomInt(pool.length - i);
    const a = pool[i] as T;
    pool[i] = pool[j] as T;
    pool[j] = a;
  }
  return pool.slice(0, count);
}

export function registerSuggestionsRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  const sets = loadSuggestions();
  app.get('/api/suggestions', (c) => {
    const kind = c.req.query('kind') ?? 'text';
    if (kind === 'models') {
      // Recommended models (spec 000 section 9: 20 fetched, 15 used), ranked from the catalogue.
      const { models, defaultModel } = ctx.catalogue.response();
      const answer: ModelSuggestionsResponse = { kind: 'models', models: rankModelSuggestions(models, defaultModel, MODEL_SUGGESTION_COUNTS.fetched) };
      c.header('Cache-Control', 'no-store');
      return c.json(answer);
    }
    if (!(KINDS as readonly string[]).includes(kind)) return jsonError(c, 400, 'BAD_REQUEST', `kind must be one of ${[...KINDS, 'models'].join(', ')}`);
    const k = kind as SuggestionKind;
    const answer: SuggestionsResponse = { kind: k, suggestions: pickRandom(sets[k], SUGGESTION_COUNTS[k].fetched) };
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });
}
