/**
 * POST /api/generate-video, GET /api/generate-video/status?runId=&modelSlug= (spec 000 section 7) and
 * GET /api/generate-video/file/:runId (ours: the finished video, from this origin; the status answer's video_url
 * points here). The POST validates (per-model defaults and the section 5 rules), holds the price, records the job
 * (src/server/media/video-jobs.ts) and answers at once with its runId; the job runner does the provider work and
 * the client polls the status every 10 s. A requestId makes the POST idempotent: the same one gives the same job.
 */
import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import { CancelVideoRequestSchema, GenerateVideoRequestSchema, VIDEO_REQUEST_CANCELLED, type GenerateVideoRequest, type GenerateVideoResponse, type VideoStatusResponse } from '../../protocol/media';
import { applyVideoDefaults, checkVideoRequest } from '../../protocol/video-rules';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import { releaseMedia, reserveQueuedMedia } from './billing';
import { videoPriceMicro, type MediaCatalogue } from './catalogue';
import { isExplicit } from './explicit';
import { readJob, readVideo, type VideoJobRunner } from './video-jobs';
import type { VideoJobInput } from './providers/types';

/** A requestId's job: the same session and requestId always name the same job (the POST is idempotent). */
function runIdOf(sessionId: string, requestId: string): string {
  return `vid_${createHash('sha256').update(`${sessionId}\n${requestId}`).digest('hex').slice(0, 32)}`;
}

export function videoFileUrl(runId: string): string {
  return `/api/generate-video/file/${encodeURIComponent(runId)}`;
}

export function registerGenerateVideoRoutes(app: Hono<AppEnv>, ctx: RouteContext, media: MediaCatalogue, runner: VideoJobRunner): void {
  app.post('/api/generate-video', async (c) => {
    const sessionId = c.get('sessionId');
    const body = await readJson(c, ctx.settings.maxBodyBytes);
    if (!body.ok) return body.response;
    const parsed = GenerateVideoRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const req: GenerateVideoRequest = { ...parsed.data.settings, ...parsed.data };
    const model = media.video(req.model);
    if (!model) return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown video model: ${req.model}`);
    const check = checkVideoRequest({
      modelId: model.upstreamModel,
      modelName: model.info.name,
      prompt: req.prompt,
      imageToVideoOnly: model.imageToVideoOnly,
      hasImage: req.imageDataUrl !== undefined,
      imageReadable: req.imageDataUrl === undefined ? null : true,
      imageSize: null,
    });
    if (!check.ok) return jsonError(c, 400, 'INVALID_VIDEO_REQUEST', check.text ? `${check.title}: ${check.text}` : check.title);
    if (isExplicit(req.prompt) && req.showExplicitContent !== true) {
      return jsonError(c, 400, 'CONTENT_POLICY_VIOLATION', 'Content flagged as inappropriate: turn on explicit content in your settings to generate it');
    }
    const { prompt, model: _m, conversationUUID: _u, requestId, showExplicitContent: _s, settings: _n, imageAttachmentId: _a, imageDataUrl, ...rest } = req;
    const settings = applyVideoDefaults(model.upstreamModel, rest);
    const input: VideoJobInput = { model: model.upstreamModel, prompt, settings: settings as Record<string, unknown> };
    if (imageDataUrl) input.imageDataUrl = imageDataUrl;

    const runId = requestId ? runIdOf(sessionId, requestId) : `vid_${crypto.randomUUID().replaceAll('-', '')}`;
    const existing = await readJob(ctx.db, sessionId, runId);
    if (existing) return c.json(answer(runId, model.info.id, existing.status, existing.hasVideo, existing.cost, existing.paymentSource));

    const key = `video:${sessionId}:${runId}`;
    const price = videoPriceMicro(model, typeof settings.duration === 'number' ? settings.duration : undefined);
    const hold = await reserveQueuedMedia(c, ctx, sessionId, key, price, `video ${model.info.id}`);
    if (!hold.ok) return hold.response;
    const inserted = await ctx.db
      .query(
        `INSERT INTO video_jobs (run_id, session_id, model, input, status, hold_key, price_usd_micro)
         VALUES ($1, $2, $3, $4::text::jsonb, 'queued', $5, $6::bigint) ON CONFLICT (run_id) DO NOTHING RETURNING run_id`,
        [runId, sessionId, model.info.id, JSON.stringify(input), hold.held ? key : null, price === null ? null : price.toString()],
      )
      .catch(async (e: unknown) => {
        await releaseMedia(ctx, key, hold.held);
        throw e;
      });
    c.header('Cache-Control', 'no-store');
    if (inserted.length === 0) {
      // The same requestId made a job (or was cancelled) meanwhile: that one is the answer, held once.
      await releaseMedia(ctx, key, hold.held);
      const other = await readJob(ctx.db, sessionId, runId);
      if (other) return c.json(answer(runId, model.info.id, other.status, other.hasVideo, other.cost, other.paymentSource));
    }
    runner.wake();
    return c.json(answer(runId, model.info.id, 'IN_QUEUE', false, 0, null));
  });

  /**
   * The client lost the POST's answer (it timed out at 300,000 ms, its connection dropped, its engine went away) and
   * settles the request by its requestId (docs/decisions.md, "A video whose answer was lost"):
   *  - a job no runner has claimed (status queued, no live lease) is cancelled and its hold given back: nothing was
   *    asked of a provider, nothing is charged;
   *  - a job a runner has (submitted, or claimed for its submit) is answered as it is: the client polls it, the video
   *    is delivered and charged once, on completion, like any other;
   *  - a requestId the gateway never saw becomes a cancelled job with no hold, so the POST arriving late holds
   *    nothing and answers CANCELLED.
   * A conditional UPDATE decides against the runner's claim (both lock the row): never cancelled after a provider
   * was asked, never run after it was cancelled.
   */
  app.post('/api/generate-video/cancel', async (c) => {
    const sessionId = c.get('sessionId');
    const body = await readJson(c, ctx.settings.maxBodyBytes);
    if (!body.ok) return body.response;
    const parsed = CancelVideoRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const runId = runIdOf(sessionId, parsed.data.requestId);
    const modelId = parsed.data.model ?? '';
    if (!(await readJob(ctx.db, sessionId, runId))) {
      // A row for a request never seen: counted like the POST it stands for, so it cannot be used to fill the table.
      const limited = await ctx.costlyLimit.check(c);
      if (limited) return limited;
    }
    await ctx.db.query(
      `INSERT INTO video_jobs (run_id, session_id, model, input, status, error) VALUES ($1, $2, $3, '{}'::jsonb, 'cancelled', $4)
       ON CONFLICT (run_id) DO NOTHING`,
      [runId, sessionId, modelId, VIDEO_REQUEST_CANCELLED],
    );
    const cancelled = await ctx.db.query<{ hold_key: string | null }>(
      `UPDATE video_jobs SET status = 'cancelled', error = $3, updated_at = now()
       WHERE run_id = $1 AND session_id = $2 AND status = 'queued' AND (lease_until IS NULL OR lease_until < now()) RETURNING hold_key`,
      [runId, sessionId, VIDEO_REQUEST_CANCELLED],
    );
    const hold = cancelled[0]?.hold_key;
    if (hold) await releaseMedia(ctx, hold, true);
    const job = await readJob(ctx.db, sessionId, runId);
    if (!job) return jsonError(c, 404, 'NOT_FOUND', 'No video job with this requestId');
    c.header('Cache-Control', 'no-store');
    return c.json(answer(runId, job.model || modelId, job.status, job.hasVideo, job.cost, job.paymentSource));
  });

  app.get('/api/generate-video/status', async (c) => {
    const runId = c.req.query('runId') ?? '';
    if (!/^vid_[a-f0-9]{32}$/.test(runId)) return jsonError(c, 400, 'BAD_REQUEST', 'runId must be a runId from POST /api/generate-video');
    const job = await readJob(ctx.db, c.get('sessionId'), runId);
    if (!job) return jsonError(c, 404, 'NOT_FOUND', 'No video job with this runId');
    const out: VideoStatusResponse = {
      data: { status: job.status, video_url: job.hasVideo ? videoFileUrl(runId) : null, error: job.error, cost: job.cost, paymentSource: job.paymentSource },
    };
    c.header('Cache-Control', 'no-store');
    return c.json(out);
  });

  app.get('/api/generate-video/file/:runId', async (c) => {
    const video = await readVideo(ctx.db, c.get('sessionId'), c.req.param('runId'));
    if (!video) return jsonError(c, 404, 'NOT_FOUND', 'No finished video with this runId');
    const total = video.bytes.length;
    c.header('Content-Type', video.type);
    c.header('Accept-Ranges', 'bytes');
    c.header('Cache-Control', 'private, max-age=31536000, immutable');
    const range = /^bytes=(\d*)-(\d*)$/.exec(c.req.header('range') ?? '');
    if (range && (range[1] !== '' || range[2] !== '')) {
      const start = range[1] === '' ? Math.max(0, total - Number(range[2])) : Number(range[1]);
      const end = range[1] === '' || range[2] === '' ? total - 1 : Math.min(total - 1, Number(range[2]));
      if (start > end || start >= total) {
        c.header('Content-Range', `bytes */${total}`);
        return c.body(null, 416);
      }
      c.header('Content-Range', `bytes ${start}-${end}/${total}`);
      return c.body(new Uint8Array(video.bytes.subarray(start, end + 1)) as Uint8Array<ArrayBuffer>, 206);
    }
    return c.body(new Uint8Array(video.bytes) as Uint8Array<ArrayBuffer>, 200);
  });

  app.all('/api/generate-video', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}

function answer(runId: string, model: string, status: GenerateVideoResponse['status'], hasVideo: boolean, cost: number, paymentSource: GenerateVideoResponse['paymentSource']): GenerateVideoResponse {
  return { runId, status, model, video_url: hasVideo ? videoFileUrl(runId) : null, cost, paymentSource };
}
