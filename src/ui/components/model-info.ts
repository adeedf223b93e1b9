/** How a catalogue entry is shown: prices, context length, provider groups, search. Pure, so it is unit-tested. */
import type { ModelInfo } from '../../protocol/api';

const PROVIDER_LABELS: Record<string, string> = {
  offline: 'Built in (offline)',
  openai: 'OpenAI',
  openrouter: 'OpenRouter',
  ollama: 'Ollama',
  anthropic: 'Anthropic',
  google: 'Google',
};

export function providerLabel(provider: string): string {
  return PROVIDER_LABELS[provider] ?? provider.charAt(0).toUpperCase() + provider.slice(1);
}

/** Trims a decimal string's trailing zeros: '2.500000' -> '2.5'. Prices stay strings: no float rounding. */
function trimDecimal(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** '$1 / $2 per 1M tokens' (input / output, USD per million tokens from the catalogue). */
export function formatPrice(model: Pick<ModelInfo, 'pricing'>): string {
  return `$${trimDecimal(model.pricing.input)} / $${trimDecimal(model.pricing.output)} per 1M tokens`;
}

/** Decimal when the number is round in decimal, else binary when round in binary (131072 = 128K), else decimal. */
function unit(tokens: number, decimal: number, binary: number): number {
  return tokens % decimal !== 0 && tokens % binary === 0 ? binary : decimal;
}

/** 128000 and 131072 -> '128K context', 1048576 -> '1M context', 1500000 -> '1.5M context'. */
export function formatContextLength(tokens: number): string {
  if (tokens >= 1_000_000) return `${Number((tokens / unit(tokens, 1_000_000, 1_048_576)).toFixed(1))}M context`;
  if (tokens >= 1000) return `${Math.round(tokens / unit(tokens, 1000, 1024))}K context`;
  return `${tokens} tokens context`;
}

/**
 * Catalogue capabilities in plain words for the picker (issue 16 item 6). What every chat model does (chat,
 * streaming, markdown) says nothing and is left out; an unknown capability is shown as its words.
 */
const CAPABILITY_WORDS: Record<string, string | null> = {
  chat: null,
  streaming: null,
  markdown: null,
  vision: 'Sees images',
  'image-lines': 'Makes images',
  thinking: 'Reasoning',
  web: 'Web search',
  'web-search': 'Web search',
  math: 'Math',
  'text-to-speech': 'Speaks text',
  speed: 'Adjustable speed',
};

export function capabilityWords(capabilities: readonly string[]): string[] {
  const out: string[] = [];
  for (const c of capabilities) {
    const known = CAPABILITY_WORDS[c];
    const word = known === undefined ? c.charAt(0).toUpperCase() + c.slice(1).replace(/[-_]+/g, ' ') : known;
    if (word !== null && !out.includes(word)) out.push(word);
  }
  return out;
}

/** Models whose name, id, provider or capabilities contain every word of the query (case-insensitive). */
export function filterModels(models: readonly ModelInfo[], query: string): ModelInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...models];
  return models.filter((m) => {
    const haystack = `${m.name} ${m.id} ${m.provider} ${providerLabel(m.provider)} ${m.capabilities.join(' ')} ${capabilityWords(m.capabilities).join(' ')} ${m.free ? 'free' : ''}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

export interface ProviderGroup {
  provider: string;
  label: string;
  models: ModelInfo[];
}

/** Groups in the catalogue's order of first appearance; models keep the catalogue's order within a group. */
export function groupByProvider(models: readonly ModelInfo[]): ProviderGroup[] {
  const groups = new Map<string, ProviderGroup>();
  for (const m of models) {
    let g = groups.get(m.provider);
    if (!g) {
      g = { provider: m.provider, label: providerLabel(m.provider), models: [] };
      groups.set(m.provider, g);
    }
    g.models.push(m);
  }
  return [...groups.values()];
}
