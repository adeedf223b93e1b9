/**
 * POST /api/conversation-summary (spec 000 section 7): request `conversationContent`, answer `summary`, a
 * conversation title of at most 150 characters (section 9).
 *
 * With PARLEY_TITLE_MODEL set, the configured (cheap) model writes the title; a priced one is paid like a reply,
 * through a ledger hold: reserve the most it may cost, settle the actual cost, release on failure. Without it,
 * when the title model fails or the balance cannot pay for it, the offline engine's deterministic title answers
 * (src/server/providers/title.ts): a title is a convenience, never a reason to fail.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { ConversationSummaryRequestSchema, SUMMARY_CONTENT_MAX_CHARS, type ChatMessage, type ConversationSummaryResponse } from '../../protocol/api';
import { describeIssues, jsonError, readJson, type AppEnv, type RouteContext } from '../context';
import { PAID_THRESHOLD_NANO_RAW, PAID_THRESHOLD_USD_MICRO, replyCostMicro } from '../money';
import type { CatalogueEntry } from '../providers/catalogue';
import { clampTitle, deterministicTitle } from '../providers/title';

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
  /** The title model's answer, or null when it could not give one (the caller falls back). */
  async function modelTitle(sessionId: string, entry: CatalogueEntry, content: string): Promise<string | null> {
    const messages: ChatMessage[] = [
      { role: 'system', content: TITLE_INSTRUCTIONS },
      { role: 'user', content },
    ];
    const key = `title:${sessionId}:${randomUUID()}`;
    const price = entry.price;
    if (price !== null) {
      const hold = await ctx.ledger.reserve(sessionId, {
        key,
        maxUsdMicro: replyCostMicro(price, estimateTokens(messages), TITLE_MAX_TOKENS),
        ttlMs: TITLE_HOLD_TTL_MS,
        above: { usdMicro: PAID_THRESHOLD_USD_MICRO, nanoRaw: PAID_THRESHOLD_NANO_RAW },
        note: `conversation-summary ${entry.info.id}`,
      });
      if (!hold.ok) return null;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('title timeout')), TITLE_TIMEOUT_MS);
    let text = '';
    let usage: { inputTokens: number; outputTokens: number } | null = null;
    try {
      const opened = await entry.provider.open({ model: entry.upstreamModel, messages, maxTokens: TITLE_MAX_TOKENS }, controller.signal);
      if (!opened.ok) throw new Error(`HTTP ${opened.status} ${opened.error}`);
      for await (const ev of opened.events) {
        if (ev.type === 'content') text += ev.text;
        else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
      }
    } catch (e) {
      ctx.log(`conversation-summary: ${entry.info.id} failed: ${e instanceof Error ? e.message : String(e)}`);
      if (price !== null) await ctx.ledger.release(key).catch(() => false);
      return null;
    } finally {
      clearTimeout(timer);
    }
    if (price !== null) {
      const input = usage?.inputTokens ?? estimateTokens(messages);
      const output = usage?.outputTokens ?? Math.ceil(text.length / 4);
      try {
        await ctx.ledger.settle(sessionId, key, replyCostMicro(price, input, output), { note: `conversation-summary ${entry.info.id}` });
      } catch (e) {
        ctx.log(`conversation-summary: settle failed for ${sessionId}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const title = clampTitle(text);
    return title === '' ? null : title;
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
