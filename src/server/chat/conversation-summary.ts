/**
 * POST /api/conversation-summary (spec 000 section 7): request `conversationContent`, answer `summary`, a
 * conversation title of at most 150 characters (section 9).
 *
 * With PARLEY_TITLE_MODEL set, the configured (cheap) model writes the title; a priced one is paid like a reply,
 * through a ledger hold: reserve the most it may cost, settle the actual cost, release on failure. Without it,
 * when the title model fails or the balance cannot pay for it, the offline engine's deterministic title answers
 * (src/server/chat/title.ts): a title is a convenience, never a reason to fail.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { ConversationSummaryRequestSchema, SUMMARY_CONTENT_MAX_CHARS, type ChatMessage, type ConversationSummaryResponse } from '../../protocol/api';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import { chatPayload } from '../body/chat-payload';
import { withHold } from '../money/paid-call';
import { replyCostMicro } from '../money/amounts';
import type { CatalogueEntry } from './catalogue';
import { OutputBudget } from '../providers/output-budget';
import { clampTitle, deterministicTitle } from './title';

/** Most tokens a title may take. */
export const TITLE_MAX_TOKENS = 60;
/** How long the title model may take before the deterministic title answers instead. */
export const TITLE_TIMEOUT_MS = 15_000;
/** A hold left open by a gateway that died mid-title is swept after this. */
const TITLE_HOLD_TTL_MS = 120_000;
/** Request body cap: the content cap as UTF-8 (4 bytes a character at most) plus the JSON around it. */
const MAX_BODY_BYTES = SUMMARY_CONTENT_MAX_CHARS * 4 + 1024;

export const TITLE_INSTRUCTIONS =
  'Write a short title (at most 8 words) for the conversation below. Answer with the title only: no quotes, no ' +
  'trailing period, no preamble.';

/** Rough token estimate of a prompt (4 characters a token), for the hold. */
function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content).length;
  return Math.ceil(chars / 4) + 8 * messages.length;
}

export function registerConversationSummaryRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  /**
   * What the title model wrote, `failed` when it could not finish (the caller then falls back, and a paid model is
   * charged for the text it did produce, as a reply cut off mid-stream is).
   */
  async function askModel(entry: CatalogueEntry, messages: ChatMessage[]): Promise<{ text: string; usage: { inputTokens: number; outputTokens: number } | null; failed: boolean }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('title timeout')), TITLE_TIMEOUT_MS);
    let text = '';
    let usage: { inputTokens: number; outputTokens: number } | null = null;
    try {
      const opened = await entry.provider.open({ model: entry.upstreamModel, conversation: chatPayload(messages), maxTokens: TITLE_MAX_TOKENS }, controller.signal);
      if (!opened.ok) throw new Error(`HTTP ${opened.status} ${opened.error}`);
      // At most the output held: an upstream that ignores max_tokens is stopped there (providers/output-budget.ts).
      const budget = new OutputBudget(TITLE_MAX_TOKENS);
      for await (const ev of opened.events) {
        if (ev.type === 'content') text += budget.take(ev.text);
        else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
        if (budget.exhausted) break; // leaving the loop closes the upstream response
      }
      return { text, usage, failed: false };
    } catch (e) {
      ctx.log(`conversation-summary: ${entry.info.id} failed: ${e instanceof Error ? e.message : String(e)}`);
      return { text, usage, failed: true };
    } finally {
      clearTimeout(timer);
    }
  }

  async function modelTitle(sessionId: string, entry: CatalogueEntry, content: string): Promise<string | null> {
    const messages: ChatMessage[] = [
      { role: 'system', content: TITLE_INSTRUCTIONS },
      { role: 'user', content },
    ];
    const price = entry.price;
    if (price === null) {
      const answer = await askModel(entry, messages);
      return answer.failed ? null : clampTitle(answer.text) || null;
    }
    // A priced title model is a paid call like any other (money/paid-call.ts): reserve the most it may cost, settle
    // what the upstream reports (tokens estimated when it reports none), release when it produced nothing.
    const paid = await withHold(
      ctx.ledger,
      sessionId,
      {
        key: `title:${sessionId}:${randomUUID()}`,
        maxUsdMicro: replyCostMicro(price, estimateTokens(messages), TITLE_MAX_TOKENS),
        note: `conversation-summary ${entry.info.id}`,
        ttlMs: TITLE_HOLD_TTL_MS,
      },
      async () => {
        const answer = await askModel(entry, messages);
        if (answer.text.length === 0 && answer.usage === null) return { value: null, costUsdMicro: null };
        const input = answer.usage?.inputTokens ?? estimateTokens(messages);
        const output = answer.usage?.outputTokens ?? Math.ceil(answer.text.length / 4);
        return { value: answer.failed ? null : answer.text, costUsdMicro: replyCostMicro(price, input, output) };
      },
      ctx.log,
    );
    if (!paid.ok || paid.value === null) return null;
    return clampTitle(paid.value) || null;
  }

  app.post('/api/conversation-summary', async (c) => {
    const body = await readJson(c, MAX_BODY_BYTES);
    if (!body.ok) return body.response;
    const parsed = ConversationSummaryRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const content = parsed.data.conversationContent;
    const modelId = ctx.settings.titleModel ?? null;
    const entry = modelId === null ? undefined : ctx.catalogue.resolve(modelId);
    let summary: string | null = null;
    if (entry) summary = await modelTitle(c.get('sessionId'), entry, content);
    else if (modelId !== null) ctx.log(`conversation-summary: PARLEY_TITLE_MODEL '${modelId}' is not in the catalogue`);
    const answer: ConversationSummaryResponse = { summary: summary ?? deterministicTitle(content) };
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  app.all('/api/conversation-summary', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
