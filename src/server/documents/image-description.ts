/**
 * POST /api/image-description (spec 000 section 7): `{model, prompt, image (data URL), session,
 * transactionDetails, detail}` -> `{description}`. `session`, when given, must be the cookie's; `detail` goes upstream
 * as image_url.detail. The image is described by a vision model of the catalogue (the one
 * asked for when it takes images, else PARLEY_VISION_MODEL), or, when none is configured, by the offline engine's
 * deterministic description (size, colours, stored text; src/server/parse/readers/image-facts.ts, read in the parse
 * pool, src/server/parse/pool.ts). The body's bytes are held within the upload budget (guards/upload-budget.ts).
 *
 * A priced vision model is paid through the paid-call path of every paid route (money/paid-call.ts, `withHold`):
 * a hold taken before the upstream call, settled at the actual cost, released on failure. A balance that cannot
 * cover the hold answers 402 like a reply would.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { formatFileSize, IMAGE_DESCRIPTION, IMAGE_UPLOAD } from '../../protocol/attachments';
import { DESCRIPTION_MAX_IMAGE_BYTES, IMAGE_DATA_URL, IMAGE_DATA_URL_MAX_CHARS, ImageDescriptionRequestSchema, upstreamDetail, type ImageDescriptionResponse } from '../../protocol/attachments-api';
import type { ChatMessage } from '../../protocol/api';
import { chatPayload, type ChatPayload } from '../body/chat-payload';
import { isVisionModel } from '../../protocol/vision';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import { uploadRefused, UPLOAD_RETRY_AFTER_S } from '../guards/upload-budget';
import { ParseError } from '../parse/pool';
import { formatNanoRawCeil, formatUsdMicro, replyCostMicro } from '../money/amounts';
import { OFFLINE_MODEL_ID } from '../providers/offline';
import type { CatalogueEntry } from '../chat/catalogue';
import { OutputBudget } from '../providers/output-budget';
import { withHold } from '../money/paid-call';
import { planReplyHold } from '../money/reply-hold';

/** Output budget of a description. */
export const DESCRIPTION_MAX_TOKENS = 1024;
/** Input tokens an image may cost upstream at high detail, beyond the 85 the estimate counts. */
const IMAGE_TOKEN_ALLOWANCE = 1_700;
const DESCRIPTION_TIMEOUT_MS = 60_000;
const HOLD_TTL_MS = 5 * 60_000;

type Described = { ok: true; text: string } | { ok: false; status: 402 | 502; code: string; message: string; extra?: { requiredBalance: string; requiredUsd: string } };

async function streamText(entry: CatalogueEntry, conversation: ChatPayload, signal: AbortSignal): Promise<{ text: string; usage: { inputTokens: number; outputTokens: number } | null }> {
  const opened = await entry.provider.open({ model: entry.upstreamModel, conversation, maxTokens: DESCRIPTION_MAX_TOKENS }, signal);
  if (!opened.ok) throw new Error(`HTTP ${opened.status} ${opened.message || opened.error}`);
  let text = '';
  let usage: { inputTokens: number; outputTokens: number } | null = null;
  // At most the output held: an upstream that ignores max_tokens is stopped there (providers/output-budget.ts).
  const budget = new OutputBudget(DESCRIPTION_MAX_TOKENS);
  for await (const ev of opened.events) {
    if (ev.type === 'content') text += budget.take(ev.text);
    else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
    if (budget.exhausted) break; // leaving the loop closes the upstream response
  }
  return { text: text.trim(), usage: budget.exhausted ? null : usage };
}

/**
 * Describes with a catalogue model. A priced one is a paid call like any other (money/paid-call.ts): the most it
 * may cost is reserved before the upstream is asked, the actual cost settled once, the hold released on failure.
 */
async function paidDescription(ctx: RouteContext, sessionId: string, entry: CatalogueEntry, messages: ChatMessage[]): Promise<Described> {
  const price = entry.price;
  // Serialised once: the estimate for the hold and the JSON the provider sends (body/chat-payload.ts).
  const conversation = chatPayload(messages);
  const failed: Described = { ok: false, status: 502, code: 'DESCRIPTION_FAILED', message: IMAGE_DESCRIPTION.failedTitle };
  const describe = async (): Promise<{ text: string; usage: { inputTokens: number; outputTokens: number } | null }> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('description timeout')), DESCRIPTION_TIMEOUT_MS);
    try {
      return await streamText(entry, conversation, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    if (price === null) {
      const { text } = await describe();
      return text === '' ? failed : { ok: true, text };
    }
    const plan = planReplyHold(price, conversation.inputTokens, DESCRIPTION_MAX_TOKENS);
    const paid = await withHold(
      ctx.ledger,
      sessionId,
      {
        key: `image-description:${sessionId}:${randomUUID()}`,
        maxUsdMicro: replyCostMicro(price, plan.inputTokens + IMAGE_TOKEN_ALLOWANCE, DESCRIPTION_MAX_TOKENS),
        note: `image-description ${entry.info.id}`,
        ttlMs: HOLD_TTL_MS,
      },
      async () => {
        const { text, usage } = await describe();
        const input = usage?.inputTokens ?? conversation.inputTokens;
        const output = usage?.outputTokens ?? Math.ceil(text.length / 4);
        return { value: text, costUsdMicro: replyCostMicro(price, input, output) };
      },
      ctx.log,
    );
    if (!paid.ok) {
      // The key is new for every call, so `used` cannot happen; answered as a failure all the same.
      if (paid.kind !== 'short') return failed;
      const { requiredUsdMicro, requiredNanoRaw } = paid.shortfall;
      return {
        ok: false,
        status: 402,
        code: 'INSUFFICIENT_BALANCE',
        message: `Insufficient balance: describing an image with ${entry.info.name} needs ${formatUsdMicro(requiredUsdMicro)} USD or ${formatNanoRawCeil(requiredNanoRaw)} XNO available`,
        extra: { requiredBalance: formatNanoRawCeil(requiredNanoRaw), requiredUsd: formatUsdMicro(requiredUsdMicro) },
      };
    }
    return paid.value === '' ? failed : { ok: true, text: paid.value };
  } catch (e) {
    ctx.log(`image-description: ${entry.info.id} failed: ${e instanceof Error ? e.message : String(e)}`);
    return failed;
  }
}

/** The catalogue entry that describes: the requested model when it takes images, else the configured one. */
export function describingModel(ctx: RouteContext, requested: string | undefined): CatalogueEntry | null {
  const asked = requested ? ctx.catalogue.resolve(requested) : undefined;
  if (asked && isVisionModel(asked.info.id) && asked.info.id !== OFFLINE_MODEL_ID) return asked;
  const configured = ctx.settings.visionModel ? ctx.catalogue.resolve(ctx.settings.visionModel) : undefined;
  return configured ?? null;
}

/** Largest body: the largest image as a data URL and the other fields. */
const MAX_BODY_BYTES = IMAGE_DATA_URL_MAX_CHARS + 8 * 1024;

export function registerImageDescriptionRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  app.post('/api/image-description', async (c) => {
    // The body is held from here until the image is described: its declared length, else the most it may be.
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    const hold = ctx.uploads.hold(c.get('sessionId'), Number.isInteger(declared) && declared >= 0 ? Math.min(declared, MAX_BODY_BYTES) : MAX_BODY_BYTES);
    if (typeof hold === 'string') return uploadRefused(c, hold);
    try {
      return await describeRoute(c, ctx);
    } finally {
      hold.release();
    }
  });
  app.all('/api/image-description', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}

/** The description of the request's image, or why not. */
async function describeRoute(c: Context<AppEnv>, ctx: RouteContext): Promise<Response> {
  const body = await readJson(c, MAX_BODY_BYTES);
  if (!body.ok) return body.response;
  const parsed = ImageDescriptionRequestSchema.safeParse(body.value);
  if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
  const { image, prompt, model, detail, session } = parsed.data;
  // The cookie's session pays; a request naming another session (a stale tab after a reset) is refused.
  if (session !== undefined && session !== c.get('sessionId')) return jsonError(c, 403, 'SESSION_MISMATCH', 'This request names another session');
  const header = IMAGE_DATA_URL.exec(image);
  if (!header) return jsonError(c, 400, 'BAD_IMAGE', IMAGE_UPLOAD.unsupportedFormatText);
  const bytes = Buffer.from(image.slice(header[0].length), 'base64');
  if (bytes.length === 0) return jsonError(c, 400, 'BAD_IMAGE', IMAGE_UPLOAD.unsupportedFormatText);
  if (bytes.length > DESCRIPTION_MAX_IMAGE_BYTES) return jsonError(c, 413, 'IMAGE_TOO_LARGE', IMAGE_UPLOAD.tooLarge(formatFileSize(bytes.length)));
  const entry = describingModel(ctx, model);
  let answer: ImageDescriptionResponse;
  if (entry) {
    const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: prompt?.trim() || IMAGE_DESCRIPTION.prompt }, { type: 'image_url', image_url: { url: image, detail: upstreamDetail(detail) } }] }];
    const described = await paidDescription(ctx, c.get('sessionId'), entry, messages);
    if (!described.ok) return jsonError(c, described.status, described.code, described.message, described.extra ?? {});
    answer = { description: described.text, model: entry.info.id };
  } else {
    try {
      answer = { description: await ctx.parse.describeImage(c.get('sessionId'), bytes), model: OFFLINE_MODEL_ID };
    } catch (e) {
      if (e instanceof ParseError && e.code === 'BUSY') {
        c.header('Retry-After', String(UPLOAD_RETRY_AFTER_S));
        return jsonError(c, 429, 'TOO_MANY_UPLOADS', e.message);
      }
      ctx.log(`image-description: offline description failed: ${e instanceof Error ? e.message : String(e)}`);
      return jsonError(c, 422, 'DESCRIPTION_FAILED', IMAGE_DESCRIPTION.failedTitle);
    }
  }
  c.header('Cache-Control', 'no-store');
  return c.json(answer);
}
