/**
 * The figures and texts of web search, scraping and suggestions that the view needs (./web.ts re-exports them),
 * kept apart from the zod schemas so that the first page's script does not carry zod. Pure.
 */
export type SuggestionKind = 'text' | 'image' | 'video';

/** Spec 001 section 9: scraping up to 25 URLs. */
export const MAX_SCRAPE_URLS = 25;
/** The notice when a message would go past MAX_SCRAPE_URLS (the gateway's TOO_MANY_URLS message too). */
export const TOO_MANY_SCRAPE_URLS = `At most ${MAX_SCRAPE_URLS} URLs can be scraped for one message`;
/** Ours (the feed names no figure): one scraped page costs $0.001; a page that fails costs nothing. Micro-USD. */
export const SCRAPE_PRICE_MICRO_PER_PAGE = 1_000;

/** The switch's reason when the gateway could not be asked whether search is available (the engine asks again). */
export const SEARCH_STATUS_UNKNOWN = 'Web search is not available right now: the server could not be asked.';

/**
 * Spec 000 section 9: 20 text prompts fetched and 15 used; 15 image and 15 video prompts. The gateway answers the
 * fetched number at random; the view shows the used number.
 */
export const SUGGESTION_COUNTS: Record<SuggestionKind, { fetched: number; used: number }> = {
  text: { fetched: 20, used: 15 },
  image: { fetched: 15, used: 15 },
  video: { fetched: 15, used: 15 },
};
/**
 * Spec 000 section 9: no-balance frequency 3, low-balance frequency 10, low-balance thresholds 0.1 USD and 0.1
 * nano. Ours (docs/decisions.md): the frequency is the place of the one "Add balance" card among the
 * suggestions: the 3rd with no balance (neither USD nor nano above the paid-use threshold), the 10th with
 * a low one (some balance, but USD below 0.1 and nano below 0.1).
 */
export const NO_BALANCE_FREQUENCY = 3;
export const LOW_BALANCE_FREQUENCY = 10;
export const LOW_BALANCE_USD = 0.1;
export const LOW_BALANCE_NANO = 0.1;

/** Spec 000 section 9 "Suggestions: 20 models fetched, 15 used": GET /api/suggestions?kind=models answers 20, the view shows 15. */
export const MODEL_SUGGESTION_COUNTS = { fetched: 20, used: 15 } as const;

/** GET /api/suggestions?kind=models: recommended text models, best first (ids of GET /api/models). */
export interface ModelSuggestionsResponse {
  kind: 'models';
  models: string[];
}

/**
 * The recommended text models, best first, at most `n`: the default model, then the free ones (usable with no
 * balance), then those that see images, then the rest in catalogue order. Pure: the gateway ranks with it.
 */
export function rankModelSuggestions(models: readonly { id: string; modality: string; free: boolean; capabilities: readonly string[] }[], defaultModel: string, n: number): string[] {
  const text = models.filter((m) => m.modality === 'text');
  const score = (m: (typeof text)[number]) => (m.id === defaultModel ? 0 : m.free ? 1 : m.capabilities.includes('vision') ? 2 : 3);
  return text
    .map((m, i) => ({ m, i }))
    .sort((a, b) => score(a.m) - score(b.m) || a.i - b.i)
    .slice(0, n)
    .map(({ m }) => m.id);
}

/** The recommended models the empty conversation shows: the first MODEL_SUGGESTION_COUNTS.used still offered. */
export function shownModelSuggestions(fetched: readonly string[], offered: ReadonlySet<string>): string[] {
  return fetched.filter((id) => offered.has(id)).slice(0, MODEL_SUGGESTION_COUNTS.used);
}
