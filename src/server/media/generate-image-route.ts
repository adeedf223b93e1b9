/**
 * POST /api/generate-image and POST /api/generate-openai-image (spec 000 section 7): one handler, the model picks
 * the provider (src/server/media/catalogue.ts). In order: validate; empty prompts of ghiblify / Upscaler filled;
 * input images within the model's limit, or a recommendation of a model that takes them; the explicit-content
 * check (isNSFW / requiresExplicitMode when showExplicitContent is off); flux-schnell's free daily uses; the hold;
 * the provider; settle, or release and 'There was an issue generating your image. You have not been charged.'
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { GenerateImageRequestSchema, IMAGE_FAILED, type GenerateImageRequest, type GenerateImageResponse } from '../../protocol/media';
import { FREE_FLUX_QUOTA, freeImageQuota, imagePrompt, maxInputImages, type FreeImageQuota } from '../../protocol/image-rules';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import { MEDIA_HOLD_TTL_MS, refusedMedia, returnFreeUse, takeFreeUse, type FreeUseSpent, type FreeUseTaken } from './billing';
import type { FreeQuotaLimits } from './config';
import { withHold } from '../money/paid-call';
import { UPSCALE_CAPABILITY, type ImageModel, type MediaCatalogue } from './catalogue';
import { isExplicit } from './explicit';
import { ImageResults, type KeptAnswer } from './image-results';
import { sniffImage } from './png';
import type { PaymentSource } from '../../protocol/stream';
import type { ImageJob, ImageResult } from './providers/types';

/** How long a provider may take for one call. */
const IMAGE_TIMEOUT_MS = 120_000;

/** Width and height of the request: explicit sizes, a 'WxH' resolution, an aspect ratio, else a square. */
export function imageSize(req: GenerateImageRequest, base: number, max: number): { width: number; height: number } {
  const clamp = (n: number) => Math.max(64, Math.min(max, Math.round(n / 8) * 8));
  if (req.width !== undefined || req.height !== undefined) return { width: clamp(req.width ?? req.height ?? base), height: clamp(req.height ?? req.width ?? base) };
  const res = req.resolution ? /^(\d+)x(\d+)$/.exec(req.resolution) : null;
  if (res) return { width: clamp(Number(res[1])), height: clamp(Number(res[2])) };
  const ar = req.aspect_ratio ? /^(\d+):(\d+)$/.exec(req.aspect_ratio) : null;
  if (ar && Number(ar[1]) > 0 && Number(ar[2]) > 0) {
    const r = Number(ar[1]) / Number(ar[2]);
    return r >= 1 ? { width: clamp(base), height: clamp(base / r) } : { width: clamp(base * r), height: clamp(base) };
  }
  return { width: clamp(base), height: clamp(base) };
}

/** The 402 of a flux-schnell whose free uses are gone (FREE_LIMIT_REACHED), saying whose count ran out. */
export function freeLimitMessage(spent: FreeUseSpent, quota: FreeImageQuota = FREE_FLUX_QUOTA): string {
  if (spent === 'session') return `Your ${quota.perDay} free ${quota.label} images for today are used up. Add funds to keep generating.`;
  if (spent === 'address') return `Today's free ${quota.label} images for your network are used up. Add funds to keep generating.`;
  return `Today's free ${quota.label} images on this server are used up. Add funds to keep generating.`;
}

function decodeDataUrl(url: string): { bytes: Uint8Array; mime: string } | null {
  const comma = url.indexOf(',');
  const bytes = new Uint8Array(Buffer.from(url.slice(comma + 1), 'base64'));
  const mime = sniffImage(bytes);
  return mime ? { bytes, mime } : null;
}

export function registerGenerateImageRoutes(app: Hono<AppEnv>, ctx: RouteContext, media: MediaCatalogue, freeFlux: FreeQuotaLimits, now: () => number = Date.now): void {
  // A retry waits for the first request's answer as long as the provider may take (plus its settle).
  const results = new ImageResults(ctx.db, ctx.bindings, IMAGE_TIMEOUT_MS + 30_000);
  const handler = async (c: Context<AppEnv>): Promise<Response> => {
    const sessionId = c.get('sessionId');
    const body = await readJson(c, ctx.settings.maxBodyBytes);
    if (!body.ok) return body.response;
    const parsed = GenerateImageRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const req: GenerateImageRequest = { ...parsed.data.settings, ...parsed.data };
    const model: ImageModel | undefined = media.image(req.model);
    if (!model) return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown image model: ${req.model}`);
    const prompt = imagePrompt(model.upstreamModel, req.prompt);
    if (prompt === null) return jsonError(c, 400, 'BAD_REQUEST', 'Message is required');

    const urls = req.imageDataUrls ?? (req.imageDataUrl ? [req.imageDataUrl] : []);
    const limit = maxInputImages(model.upstreamModel);
    if (urls.length > 0 && !model.imageToImage) {
      const better = media.imageToImageModels()[0];
      const answer: GenerateImageResponse = better
        ? { recommendedModel: better.info.id, recommendedModelName: better.info.name, explanation: `${model.info.name} does not take input images. ${better.info.name} can edit or transform an image.` }
        : { explanation: `${model.info.name} does not take input images.` };
      return c.json(answer);
    }
    if (urls.length > limit) {
      return jsonError(c, 400, 'TOO_MANY_IMAGES', `${model.info.name} takes at most ${limit} input image${limit === 1 ? '' : 's'}`);
    }
    if (urls.length === 0 && model.info.capabilities.includes(UPSCALE_CAPABILITY)) {
      return jsonError(c, 400, 'IMAGE_REQUIRED', `${model.info.name} needs an image: add one with "Add image"`);
    }
    const inputs = [];
    for (const u of urls) {
      const d = decodeDataUrl(u);
      if (!d) return jsonError(c, 400, 'BAD_IMAGE', 'An input image is not a PNG, JPEG, WebP or GIF image');
      inputs.push(d);
    }

    const explicit = isExplicit(prompt);
    if (explicit && req.showExplicitContent !== true) return c.json({ isNSFW: true, requiresExplicitMode: true } satisfies GenerateImageResponse);

    // The requestId is bound to this request: a retry gets the first one's answer (./image-results.ts).
    const requestId = req.requestId ?? randomUUID();
    const claim = await results.claim(sessionId, requestId, model.info.id, req);
    switch (claim.kind) {
      case 'first':
        break;
      case 'answered':
        c.header('Cache-Control', 'no-store');
        return c.json(claim.answer.body, claim.answer.status);
      case 'no-session':
        return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
      case 'reused':
        return jsonError(c, 409, 'REQUEST_ID_REUSED', `This requestId was already used for another request (${claim.differs === 'model' ? 'another model' : 'another prompt or settings'}); send a new requestId for a new request`);
      case 'lost':
        return jsonError(c, 502, 'UPSTREAM_ERROR', IMAGE_FAILED);
    }
    let kept = false;
    try {
      const response = await generateOnce(c, sessionId, requestId, model, prompt, inputs, req, explicit);
      kept = response.kept;
      return response.response;
    } finally {
      if (!kept) await results.free(sessionId, requestId).catch((e: unknown) => ctx.log(`generate-image: could not free requestId ${requestId}: ${e instanceof Error ? e.message : String(e)}`));
    }
  };

  /** A keep that failed still answers and does not free the requestId: a retry then gets 'lost', never a second charge. */
  const keep = (requestId: string, sessionId: string, answer: KeptAnswer): Promise<void> =>
    results.keep(sessionId, requestId, answer).catch((e: unknown) => ctx.log(`generate-image: could not keep the answer of ${requestId}: ${e instanceof Error ? e.message : String(e)}`));

  /** The generation itself, once per requestId: the free use or the hold, the provider, the answer kept. */
  const generateOnce = async (
    c: Context<AppEnv>,
    sessionId: string,
    requestId: string,
    model: ImageModel,
    prompt: string,
    inputs: ImageJob['inputs'],
    req: GenerateImageRequest,
    explicit: boolean,
  ): Promise<{ response: Response; kept: boolean }> => {
    const refused = (response: Response) => ({ response, kept: false });
    const n = model.info.capabilities.includes('quadrants') || model.info.capabilities.includes(UPSCALE_CAPABILITY) ? 1 : (req.nImages ?? 1);
    const size = model.offline ? imageSize(req, model.upstreamModel.endsWith('grid') ? 256 : 512, 1024) : imageSize(req, 1024, 2048);
    const job: ImageJob = { model: model.upstreamModel, prompt, n, width: size.width, height: size.height, inputs };
    if (req.negative_prompt) job.negativePrompt = req.negative_prompt;
    if (req.seed !== undefined) job.seed = req.seed;
    if (req.guidance_scale !== undefined) job.guidanceScale = req.guidance_scale;
    if (model.info.capabilities.includes(UPSCALE_CAPABILITY)) {
      job.upscaleFactor = req.upscale_factor ?? 2;
      job.upscale = (data, factor, signal) => ctx.parse.upscaleImage(sessionId, data, factor, signal);
    }

    // A priced flux-schnell: 10 free uses a day, counted in the session's 'count:date' metadata and shared by the
    // sessions of one client address and of the whole gateway (media/billing.ts); then it is paid.
    let freeUse: FreeUseTaken | null = null;
    let spent: FreeUseSpent | null = null;
    let freeUsesLeft: number | undefined;
    const quota = freeImageQuota(model.upstreamModel);
    if (quota !== null && model.priceMicro !== null) {
      const took = await takeFreeUse(ctx.db, sessionId, ctx.clientAddress(c), freeFlux, now(), quota);
      if (took.ok) {
        freeUse = took.taken;
        freeUsesLeft = took.taken.left;
      } else {
        spent = took.spent;
        freeUsesLeft = 0;
      }
    }
    const price = freeUse !== null || model.priceMicro === null ? null : model.priceMicro * BigInt(n);
    const key = `image:${sessionId}:${requestId}`;
    const what = `image ${model.info.id}`;

    const generate = async (): Promise<ImageResult> => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('image timeout')), IMAGE_TIMEOUT_MS);
      try {
        return await model.provider.generate(job, controller.signal);
      } catch (e) {
        return { ok: false as const, status: 502, code: 'UPSTREAM_ERROR', message: e instanceof Error ? e.message : String(e) };
      } finally {
        clearTimeout(timer);
      }
    };
    // A paid image holds its price before the provider is asked; settled when the images came, given back if not.
    let result: ImageResult;
    let paid: { cost: number; paymentSource: PaymentSource | null } = { cost: 0, paymentSource: null };
    if (price === null) result = await generate();
    else {
      const held = await withHold(
        ctx.ledger,
        sessionId,
        { key, maxUsdMicro: price, note: what, ttlMs: MEDIA_HOLD_TTL_MS },
        async () => {
          const r = await generate();
          return { value: r, costUsdMicro: r.ok ? price : null, countReply: true };
        },
        ctx.log,
      );
      if (!held.ok) {
        if (held.kind === 'short' && spent !== null) return refused(jsonError(c, 402, 'FREE_LIMIT_REACHED', freeLimitMessage(spent, quota ?? FREE_FLUX_QUOTA)));
        return refused(refusedMedia(c, held, what));
      }
      result = held.value;
      // A settle that failed in the database is not charged (billingError): the answer says it cost nothing.
      if (held.settlement && !held.settlement.billingError) paid = { cost: held.settlement.cost, paymentSource: held.settlement.paymentSource };
    }
    if (!result.ok) {
      if (freeUse) await returnFreeUse(ctx.db, sessionId, freeUse);
      ctx.log(`generate-image: ${model.info.id} failed: ${result.code} ${result.message}`);
      const status = result.status === 400 || result.status === 429 || result.status === 503 ? result.status : 502;
      // Kept: its hold key is spent, and a retry gets the same failure (nothing was charged).
      await keep(requestId, sessionId, { status, body: { error: result.code, message: IMAGE_FAILED } });
      return { response: jsonError(c, status, result.code, IMAGE_FAILED), kept: true };
    }
    const answer: GenerateImageResponse = {
      runId: requestId,
      data: result.images.map((img) => ({ b64_json: Buffer.from(img.bytes).toString('base64'), mimeType: img.mime })),
      cost: paid.cost,
      paymentSource: paid.paymentSource,
    };
    if (explicit) answer.isNSFW = true;
    if (result.quadrants) {
      answer.quadrants = true;
      answer.task_id = requestId;
    }
    if (freeUsesLeft !== undefined) answer.freeUsesLeft = freeUsesLeft;
    // Kept before it is answered: a client that never reads this answer gets it on its retry.
    await keep(requestId, sessionId, { status: 200, body: answer });
    c.header('Cache-Control', 'no-store');
    return { response: c.json(answer), kept: true };
  };
  app.post('/api/generate-image', handler);
  app.post('/api/generate-openai-image', handler);
  app.all('/api/generate-image', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
  app.all('/api/generate-openai-image', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
