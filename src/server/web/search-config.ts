/**
 * Web search configuration from the environment (docs/gateway.md, "Web search and scraping"):
 *
 *   PARLEY_SEARXNG_URL      a SearXNG instance with the json format enabled
 *   PARLEY_LINKUP_API_KEY   Linkup (PARLEY_LINKUP_URL overrides https://api.linkup.so/v1)
 *   PARLEY_BRAVE_API_KEY    Brave Search (PARLEY_BRAVE_URL overrides https://api.search.brave.com/res/v1)
 *   PARLEY_SEARCH_PROVIDER  which one to use when several are configured (linkup, brave or searxng); by default
 *                           the first configured in that order
 *   PARLEY_SEARCH_TIMEOUT_MS  how long a search may take (default 20000; deep searches run long)
 *
 * None configured: web search is unavailable and the composer's switch says why.
 */
import { ConfigError, type Env } from '../env-vars';
import { braveProvider, linkupProvider, searxngProvider, type SearchProvider } from './search-providers';

export interface SearchConfig {
  provider: SearchProvider | null;
  timeoutMs: number;
}

const NAMES = ['linkup', 'brave', 'searxng'] as const;

function baseUrl(raw: string, name: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got '${raw}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got '${raw}'`);
  return u.href.replace(/\/+$/, '');
}

export function loadSearchConfig(env: Env): SearchConfig {
  const available = new Map<string, SearchProvider>();
  const linkupKey = env.PARLEY_LINKUP_API_KEY?.trim();
  if (linkupKey) available.set('linkup', linkupProvider(baseUrl(env.PARLEY_LINKUP_URL?.trim() || 'https://api.linkup.so/v1', 'PARLEY_LINKUP_URL'), linkupKey));
  const braveKey = env.PARLEY_BRAVE_API_KEY?.trim();
  if (braveKey) available.set('brave', braveProvider(baseUrl(env.PARLEY_BRAVE_URL?.trim() || 'https://api.search.brave.com/res/v1', 'PARLEY_BRAVE_URL'), braveKey));
  const searxng = env.PARLEY_SEARXNG_URL?.trim();
  if (searxng) available.set('searxng', searxngProvider(baseUrl(searxng, 'PARLEY_SEARXNG_URL')));

  const chosen = env.PARLEY_SEARCH_PROVIDER?.trim().toLowerCase();
  let provider: SearchProvider | null = null;
  if (chosen) {
    if (!(NAMES as readonly string[]).includes(chosen)) throw new ConfigError(`PARLEY_SEARCH_PROVIDER must be one of ${NAMES.join(', ')}, got '${chosen}'`);
    provider = available.get(chosen) ?? null;
    if (!provider) throw new ConfigError(`PARLEY_SEARCH_PROVIDER is '${chosen}' but that provider is not configured`);
  } else {
    for (const name of NAMES) provider ??= available.get(name) ?? null;
  }

  const rawTimeout = env.PARLEY_SEARCH_TIMEOUT_MS?.trim();
  const timeoutMs = rawTimeout ? Number(rawTimeout) : 20_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 300_000) {
    throw new ConfigError(`PARLEY_SEARCH_TIMEOUT_MS must be a whole number of milliseconds from 100 to 300000, got '${rawTimeout}'`);
  }
  return { provider, timeoutMs };
}
