/**
 * Web commands (docs/architecture.md, "The engine, by domain"): whether web search can be used, scraping URLs for
 * the composer, starter suggestions; and the web search that runs before a reply when the switch is on
 * (`searchThenReply`, used by the submit flow in ../chat/commands.ts).
 *
 * The search runs as its own gateway call, before the reply's stream opens: its sources are stored on the user
 * message (message.webSearched) before any reply text arrives, so the reply's citations link as they stream, a
 * regeneration reuses them (no second search, no second charge), and the reply request carries them in its
 * messages. The request names the model with the spec's ':online' or ':online/linkup-deep' suffix and
 * transactionDetails.linkupDepth (docs/decisions.md).
 */
import type { StreamGptRequest } from '../../../protocol/api';
import type { ScrapeDraft, ScrapeOutcome, WebHandlers } from '../../../protocol/engine';
import { MAX_SCRAPE_URLS, SEARCH_STATUS_UNKNOWN, TOO_MANY_SCRAPE_URLS, type SearchDepth, type WebSearchStatus } from '../../../protocol/web';
import { makeEvent } from '../../../events/catalogue';
import type { MessageRow, WebSearchRecord, WebSourceRecord } from '../../../events/model';
import type { EngineCore } from '../../core';
import { classifyModelError } from '../../infra/errors';
import { GatewayError } from '../../infra/gateway';
import { webClient } from './web-client';
import { sourcesBlock, withContextOnLastUser } from '../../../shared/web-context';
import { sessionCurrency } from '../replies/submit';

export const SCRAPE_FAILED = 'Could not scrape the pages. Check your connection and try again.';

/** The model id with the spec's web search suffix (spec 000 section 7). */
export function onlineModel(model: string, depth: SearchDepth): string {
  return depth === 'deep' ? `${model}:online/linkup-deep` : `${model}:online`;
}

/**
 * An opener for liveReplies(core).startReply that first searches the web for the user's prompt, records the sources on the user
 * message, then opens the reply with them in its messages. A failed or refused search fails the reply before any
 * model is called, with the gateway's message (nothing is charged for it).
 */
export function searchThenReply(
  core: EngineCore,
  args: { user: MessageRow; depth: SearchDepth; request: StreamGptRequest },
  open: (request: StreamGptRequest, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>,
): (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>> {
  return async (signal) => {
    const { user, depth, request } = args;
    const sources = await searchFor(core, user, depth, request.requestId ?? crypto.randomUUID(), signal);
    const messages = sources.length > 0 ? withContextOnLastUser(request.messages, sourcesBlock(sources)) : request.messages;
    return open({ ...request, messages, model: onlineModel(request.model, depth), transactionDetails: { linkupDepth: depth }, webContextIncluded: true }, signal);
  };
}

/** Searches the web for a user message's prompt and records the sources on it (message.webSearched). */
export async function searchFor(core: EngineCore, user: MessageRow, depth: SearchDepth, requestId: string, signal?: AbortSignal): Promise<WebSourceRecord[]> {
  const query = typeof user.prompt === 'string' ? user.prompt : user.prompt.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
  const found = await webClient.search({ query: query.trim().slice(0, 2000) || 'web search', depth, requestId: `${requestId}:search` }, signal);
  const now = Date.now();
  const webSearch: WebSearchRecord = { depth, provider: found.provider, sources: found.results, cost: found.cost, paymentSource: found.paymentSource, at: now };
  await core.append([makeEvent('message.webSearched', { conversationSlug: user.conversationSlug, messageId: user.id, webSearch, at: now }, crypto.randomUUID(), now)]);
  void core.refreshSession();
  return found.results;
}

/**
 * Multi-model with web search: one search for all models (one charge), its sources added to every model's request.
 * A failed search raises its notice and no model is asked.
 */
export async function searchForAll<T extends { messages: StreamGptRequest['messages'] }>(core: EngineCore, user: MessageRow, depth: SearchDepth, targets: T[]): Promise<T[] | null> {
  try {
    const sources = await searchFor(core, user, depth, crypto.randomUUID());
    if (sources.length === 0) return targets;
    return targets.map((t) => ({ ...t, messages: withContextOnLastUser(t.messages, sourcesBlock(sources)) }));
  } catch (error) {
    const b = error instanceof GatewayError ? error.body : null;
    core.notify(classifyModelError({ status: error instanceof GatewayError ? error.status : 0, code: b?.error, message: b?.message ?? (error instanceof Error ? error.message : undefined), body: b, currency: sessionCurrency(core) }));
    return null;
  }
}

export function webCommands(core: EngineCore): WebHandlers {
  let status: WebSearchStatus | null = null;
  /** URLs being scraped now, by composer draft (ScrapeDraft.key). */
  const inFlight = new Map<string, Set<string>>();
  /** The web routes need the session cookie: a tab that asks right at load waits for the session first. */
  const ready = async (): Promise<void> => {
    await core.whenStarted();
    if (core.session$.value.session === null) await core.refreshSession();
  };
  return {
    async webSearchStatus() {
      if (status) return status;
      try {
        await ready();
        status = await webClient.searchStatus();
        return status;
      } catch {
        return { available: false, provider: null, depths: [], prices: { standard: '0.006000', deep: '0.060000' }, reason: SEARCH_STATUS_UNKNOWN };
      }
    },

    async scrapeUrls(urls: string[], draft?: ScrapeDraft): Promise<ScrapeOutcome> {
      // The message's cap counts its attached pages and its scrapes in flight (two scrapes at once included).
      const key = draft?.key ?? crypto.randomUUID();
      const flying = inFlight.get(key) ?? new Set<string>();
      const taken = new Set([...(draft?.attached ?? []), ...flying]);
      const unique = [...new Set(urls.map((u) => u.trim()).filter((u) => u !== '' && !taken.has(u)))];
      if (unique.length === 0) return { ok: true, pages: [], failures: [], cost: 0 };
      const room = Math.max(0, MAX_SCRAPE_URLS - taken.size);
      if (room === 0) return { ok: false, error: TOO_MANY_SCRAPE_URLS };
      const batch = unique.slice(0, room);
      const skipped = unique.slice(room);
      for (const u of batch) flying.add(u);
      inFlight.set(key, flying);
      try {
        await ready();
        const r = await webClient.scrape({ urls: batch, requestId: crypto.randomUUID() });
        void core.refreshSession();
        return { ok: true, pages: r.pages, failures: r.failures, cost: r.cost, ...(skipped.length > 0 ? { skipped } : {}) };
      } catch (error) {
        if (!(error instanceof GatewayError)) return { ok: false, error: SCRAPE_FAILED };
        const b = error.body;
        if (error.status === 402) {
          core.notify(classifyModelError({ status: 402, code: b?.error, message: b?.message, body: b, currency: sessionCurrency(core) }));
          return { ok: false, error: b?.message ?? SCRAPE_FAILED, notified: true };
        }
        return { ok: false, error: b?.message ?? SCRAPE_FAILED };
      } finally {
        for (const u of batch) flying.delete(u);
        if (flying.size === 0 && inFlight.get(key) === flying) inFlight.delete(key);
      }
    },

    async suggestions(kind) {
      try {
        await ready();
        return (await webClient.suggestions(kind)).suggestions;
      } catch {
        return [];
      }
    },

    async modelSuggestions() {
      try {
        await ready();
        return (await webClient.modelSuggestions()).models;
      } catch {
        return [];
      }
    },
  };
}
