/** The engine's client of the web routes (docs/protocol.md, "Web search, scraping and suggestions"). */
import type { ScrapeRequest, ScrapeResponse, ModelSuggestionsResponse, SuggestionKind, SuggestionsResponse, WebSearchRequest, WebSearchResponse, WebSearchStatus } from '../../../protocol/web';
import { gatewayErrorOf } from '../../infra/gateway';

async function answer<T>(res: Response): Promise<T> {
  if (!res.ok) throw await gatewayErrorOf(res);
  return (await res.json()) as T;
}

function post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  return fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  }).then((r) => answer<T>(r));
}

function get<T>(path: string): Promise<T> {
  return fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } }).then((r) => answer<T>(r));
}

export const webClient = {
  searchStatus: () => get<WebSearchStatus>('/api/web-search'),
  search: (request: WebSearchRequest, signal?: AbortSignal) => post<WebSearchResponse>('/api/web-search', request, signal),
  scrape: (request: ScrapeRequest) => post<ScrapeResponse>('/api/scrape', request),
  suggestions: (kind: SuggestionKind) => get<SuggestionsResponse>(`/api/suggestions?kind=${kind}`),
  modelSuggestions: () => get<ModelSuggestionsResponse>('/api/suggestions?kind=models'),
};
