/**
 * Image and video commands (spec 000 sections 4 to 6): the submit flow's image and video handlers (validate, check,
 * create the conversation if new, the user message, the pending assistant message, then POST /api/generate-image
 * or /api/generate-video), per-model settings, gallery favourites and the files the view shows. The video status
 * pipeline (rooms/media/video-poller.ts) is started here, once the engine has started.
 */
import { makeEvent } from '../../../events/catalogue';
import type { ImageRef, MessageRow, ModelSettings } from '../../../events/model';
import type { ActionResult, MediaHandlers, MediaSubmitInput, SendMessageResult } from '../../../protocol/engine';
import { fitInputImages, imagePrompt, inputImageUse } from '../../../protocol/image-rules';
import { VIDEO_GENERATE_TIMEOUT_MS, checkVideoRequest, videoTimedOut } from '../../../protocol/video-rules';
import { VIDEO_REQUEST_CANCELLED, VIDEO_UNEXPECTED, type GenerateImageRequest, type GenerateVideoRequest } from '../../../protocol/media';
import { foldFavourites, foldModelSettings, MODEL_SETTINGS_EVENT } from '../../../projections/model-settings';
import type { EngineCore } from '../../core';
import { classifyModelError } from '../../infra/errors';
import { gateway, GatewayError } from '../../infra/gateway';
import { dataUrlOf, readFile, storeImage } from '../../infra/files';
import { imageMime, imageSize } from '../../infra/image-size';
import { runImage } from './image-run';
import { VIDEO_POLLER } from './video-poller';
import { ReplyStreamParser } from '../replies/stream-parser';
import type { LiveReply } from '../replies/reply-runner';
import { chatSubmitter } from '../chat/commands';
import { registerModeHandler, type ModeHandler, type Submission } from '../replies/submit-plugins';
import { pendingAssistant } from '../../../shared/history';
import { liveReplies } from '../replies/live';

const LOCAL_STORAGE = 'Local storage unavailable';

/**
 * Ours: the failed video request's text when the generate call got no answer within VIDEO_GENERATE_TIMEOUT_MS (spec
 * 000 section 9 gives the 300,000 ms, not the words; the platform's own abort text differs between browsers).
 */
export const VIDEO_GENERATE_TIMED_OUT = 'The video service did not answer within 5 minutes.';

/** Ours: a video reply whose generate call went unanswered and whose job the gateway could not be asked about. */
export const VIDEO_JOB_UNSETTLED = 'The video request was interrupted and the video service could not be reached about it.';

/** Largest image accepted as an input (spec 001's upload limit is the attachments' concern; this bounds the call). */
export const MAX_INPUT_IMAGE_BYTES = 15 * 1024 * 1024;

export function mediaCommands(core: EngineCore): MediaHandlers {
  const poller = core.room(VIDEO_POLLER);
  void core
    .whenStarted()
    .then(() => poller.start())
    .catch((error: unknown) => {
      // A database closed by dispose is the engine ending, not a failure.
      if (!poller.isStopped) console.warn('Video polling could not start', error);
    });

  async function settingsOf(modelId: string): Promise<ModelSettings> {
    const events = await core.db.events.where('type').equals(MODEL_SETTINGS_EVENT).toArray();
    return foldModelSettings(events as never)[modelId] ?? {};
  }

  async function inputRefs(ids: readonly number[]): Promise<ImageRef[]> {
    const refs: ImageRef[] = [];
    for (const id of ids) {
      const blob = await readFile(core.db, id);
      if (!blob) continue;
      const head = new Uint8Array(await blob.slice(0, 64 * 1024).arrayBuffer());
      const size = imageSize(head) ?? { width: 0, height: 0 };
      refs.push({ fileId: id, thumbId: id, mimeType: blob.type, width: size.width, height: size.height, bytes: blob.size });
    }
    return refs;
  }

  /** Registers the pending reply so the conversation shows it (and its pending flag) until the answer. */
  function pendingReply(messageId: number, userMessageId: number, slug: string, requestId = ''): LiveReply {
    const reply: LiveReply = { messageId, userMessageId, slug, requestId, parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
    liveReplies(core).live.set(messageId, reply);
    return reply;
  }

  function settle(reply: LiveReply): void {
    liveReplies(core).live.delete(reply.messageId);
    liveReplies(core).live$.next(reply.slug);
    // A disposed engine asks the gateway nothing more.
    if (!poller.isStopped) void core.refreshSession();
  }

  /**
   * The image request of a reply: built the same way when it is first sent and when a new engine asks again for an
   * orphaned reply, so that the gateway sees the same request under its requestId and answers the first one's images.
   */
  async function imageRequest(base: { prompt: string; model: string; conversationUUID: string; requestId: string }, settings: ModelSettings, inputs: readonly ImageRef[]): Promise<GenerateImageRequest> {
    const request: GenerateImageRequest = { ...base, showExplicitContent: core.preferences$.value.showExplicitContent, ...settings };
    const urls = await Promise.all(inputs.map(async (r) => dataUrlOf((await readFile(core.db, r.fileId)) as Blob)));
    if (urls.length === 1) request.imageDataUrl = urls[0] as string;
    else if (urls.length > 1) request.imageDataUrls = urls;
    return request;
  }

  function startImage(reply: LiveReply, request: GenerateImageRequest): void {
    void runImage(core, reply, request)
      .catch((error: unknown) => console.error('Image failed to record', error))
      .finally(() => settle(reply));
  }

  /** An image reply left pending by an engine that went away: asked again with its requestId (never generated twice). */
  liveReplies(core).resumers.set('image', async (message) => {
    const user = message.parentMessageId === null ? undefined : await core.db.messages.get(message.parentMessageId);
    const conversation = await core.db.conversations.where('slug').equals(message.conversationSlug).first();
    if (!user || !conversation || !message.requestId) return false;
    const prompt = typeof user.prompt === 'string' ? user.prompt : '';
    const request = await imageRequest({ prompt, model: message.model, conversationUUID: conversation.uuid, requestId: message.requestId }, message.imageSettings ?? {}, user.images ?? []);
    startImage(pendingReply(message.id, user.id, message.conversationSlug, message.requestId), request);
    return true;
  });

  /** Steps 6 and 7 of an image or video submit (steps 1 to 5 are the submit flow's: ../replies/submit.ts). */
  async function runMedia(sub: Submission, mode: 'image' | 'video'): Promise<SendMessageResult> {
    const { input, model, conversation, user, events, now } = sub;
    const settings = { ...(await settingsOf(model.id)), ...input.settings };
    // Only a request whose mode and model take an input image carries it (issue 16: protocol/image-rules.ts).
    const ids = inputImageUse(mode, model) === null ? [] : (input.inputImageIds ?? []);
    const inputs = await inputRefs(mode === 'image' ? fitInputImages(model.id, ids) : ids.slice(0, 1));
    const prompt = typeof user.prompt === 'string' ? user.prompt : '';
    const image = inputs[0];
    const blob = mode === 'video' && image ? await readFile(core.db, image.fileId) : null;
    if (mode === 'video') {
      const check = checkVideoRequest({
        modelId: model.id,
        modelName: model.name,
        prompt,
        imageToVideoOnly: model.capabilities.includes('image-to-video-only'),
        hasImage: image !== undefined,
        imageReadable: image === undefined ? null : blob !== null && image.width > 0,
        imageSize: image && image.width > 0 ? { width: image.width, height: image.height } : null,
      });
      if (!check.ok) {
        core.notify({ title: check.title, text: check.text, tone: 'orange', durationMs: 15_000 });
        return { ok: false, error: check.title, notified: true };
      }
    }
    user.mode = mode;
    user.imageSettings = settings;
    if (inputs.length > 0) user.images = inputs;
    // (6) The pending assistant message, live before the append commits (the view never shows it empty).
    // The reply keeps its requestId in the log: a new engine asks again with it (liveReplies(core).resumers), an image
    // for its images, a video for the job its generate call may have made (settleLostVideo).
    const requestId = crypto.randomUUID();
    const assistant: MessageRow = { ...pendingAssistant(core.ids.next(now), user, model.id, now + 1), mode, imageSettings: settings, requestId };
    events.push(makeEvent('message.added', { message: assistant }, crypto.randomUUID(), now));
    const reply = pendingReply(assistant.id, user.id, conversation.slug, mode === 'image' ? requestId : '');
    try {
      await core.append(events);
    } catch {
      liveReplies(core).live.delete(reply.messageId);
      return { ok: false, error: LOCAL_STORAGE, notified: true };
    }
    // (7) The image or video handler.
    const common = { prompt, model: model.id, conversationUUID: conversation.uuid, requestId, showExplicitContent: core.preferences$.value.showExplicitContent };
    if (mode === 'image') {
      startImage(reply, await imageRequest(common, settings, inputs));
    } else {
      const { nImages: _n, width: _w, height: _h, guidance_scale: _g, upscale_factor: _u, voice: _v, ...videoSettings } = settings;
      const request: GenerateVideoRequest = { ...common, ...videoSettings };
      if (blob) request.imageDataUrl = await dataUrlOf(blob);
      void requestVideo(reply, model.id, request)
        .catch((error: unknown) => console.error('Video request failed to record', error))
        .finally(() => settle(reply));
    }
    return { ok: true, slug: conversation.slug, userMessageId: user.id };
  }

  /** Records the job the gateway made: the poller follows it to its video (rooms/media/video-poller.ts). */
  async function recordRequested(reply: LiveReply, modelId: string, runId: string): Promise<void> {
    const at = Date.now();
    await core.append([makeEvent('video.requested', { messageId: reply.messageId, conversationSlug: reply.slug, runId, model: modelId, at }, crypto.randomUUID(), at)]);
  }

  async function failVideo(reply: LiveReply, message: string): Promise<void> {
    const at = Date.now();
    await core.append([
      makeEvent('reply.failed', { messageId: reply.messageId, conversationSlug: reply.slug, userMessageId: reply.userMessageId, error: message, keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at }, crypto.randomUUID(), at),
    ]);
  }

  /**
   * A generate call whose answer was lost (its 300,000 ms deadline, a dropped connection, an engine that went away)
   * may still have made a job at the gateway, which would run and be charged unseen. Settled by its requestId
   * (POST /api/generate-video/cancel, docs/decisions.md): a job no provider has is cancelled (nothing charged); a job
   * a provider has is recorded and followed like any other (delivered, charged once). While the gateway cannot be
   * reached it is asked again every poll period, up to the video's 20 minutes from `since`.
   */
  async function settleLostVideo(reply: LiveReply, modelId: string, requestId: string, since: number): Promise<'requested' | 'cancelled' | 'unknown' | 'stopped'> {
    for (;;) {
      if (poller.isStopped) return 'stopped';
      try {
        const answer = await gateway.cancelVideo({ requestId, model: modelId }, poller.signal);
        if (poller.isStopped) return 'stopped';
        if (answer.status === 'CANCELLED' || typeof answer.runId !== 'string' || answer.runId === '') return 'cancelled';
        await recordRequested(reply, modelId, answer.runId);
        return 'requested';
      } catch (error) {
        if (poller.isStopped) return 'stopped';
        // A refusal (signed out, a bad request) is an answer: nothing more to ask.
        if (error instanceof GatewayError && error.status < 500 && error.status !== 429) return 'unknown';
        if (videoTimedOut(since, Date.now(), poller.timeoutMs)) return 'unknown';
        await poller.wait(poller.pollMs);
      }
    }
  }

  async function requestVideo(reply: LiveReply, modelId: string, request: GenerateVideoRequest): Promise<void> {
    const since = Date.now();
    // The 300,000 ms deadline on a timer of the engine's own (not AbortSignal.timeout): a test's fake clock drives it.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(VIDEO_GENERATE_TIMED_OUT)), VIDEO_GENERATE_TIMEOUT_MS);
    try {
      const answer = await gateway.generateVideo(request, deadline.signal).finally(() => clearTimeout(timer));
      // The engine was disposed while the gateway answered (a leader tab handing over): its database is closed, so
      // nothing is written; the next engine finds the reply pending and settles it by its requestId.
      if (poller.isStopped) return;
      if (typeof answer?.runId !== 'string' || answer.runId === '') throw new Error(VIDEO_UNEXPECTED);
      await recordRequested(reply, modelId, answer.runId);
    } catch (error) {
      if (poller.isStopped) return;
      const body = error instanceof GatewayError ? error.body : null;
      const message = deadline.signal.aborted ? VIDEO_GENERATE_TIMED_OUT : (body?.message ?? (error instanceof Error ? error.message : String(error)));
      // No answer (the deadline, the network) or a server error: the gateway may have made the job all the same.
      const lost = deadline.signal.aborted || !(error instanceof GatewayError) || error.status >= 500;
      if (lost && request.requestId && !(error instanceof Error && error.message === VIDEO_UNEXPECTED)) {
        const outcome = await settleLostVideo(reply, modelId, request.requestId, since);
        if (outcome === 'requested' || outcome === 'stopped') return;
      }
      core.notify(classifyModelError({ status: error instanceof GatewayError ? error.status : undefined, code: body?.error, message, body }));
      await failVideo(reply, message);
    }
  }

  /**
   * A video reply left pending by an engine that went away before its generate call answered: settled by its
   * requestId (followed when the gateway made the job, failed with nothing charged when it did not).
   */
  liveReplies(core).resumers.set('video', async (message) => {
    if (!message.requestId || message.videoGenerationId) return false;
    const reply = pendingReply(message.id, message.parentMessageId ?? 0, message.conversationSlug);
    void settleLostVideo(reply, message.model, message.requestId, message.timestamp)
      .then(async (outcome) => {
        if (outcome === 'cancelled' || outcome === 'unknown') await failVideo(reply, outcome === 'cancelled' ? VIDEO_REQUEST_CANCELLED : VIDEO_JOB_UNSETTLED);
      })
      .catch((error: unknown) => console.error('Video request failed to record', error))
      .finally(() => settle(reply));
    return true;
  });

  const modeOf = (mode: 'image' | 'video'): ModeHandler => ({
    mode,
    queueable: false,
    multiModel: false,
    gatewayChecksBalance: true,
    accepts: (m) => m.modality === mode,
    // Spec 000 section 5: ghiblify and Upscaler fill an empty prompt; a video needs one.
    promptFor: (m, prompt) => (mode === 'image' ? imagePrompt(m.id, prompt) : prompt.trim() || null),
    run: (sub) => runMedia(sub, mode),
  });
  registerModeHandler(core, modeOf('image'));
  registerModeHandler(core, modeOf('video'));
  const submit = chatSubmitter(core);

  return {
    generateImage: (input: MediaSubmitInput) => submit({ ...input, mode: 'image' }),
    generateVideo: (input: MediaSubmitInput) => submit({ ...input, mode: 'video' }),

    async setModelSettings(modelId: string, settings: ModelSettings): Promise<ActionResult> {
      await core.whenStarted();
      const now = Date.now();
      // A setting set back to the model's default is recorded as null (undefined is not a value in the log).
      const recorded = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v === undefined ? null : v])) as ModelSettings;
      await core.append([makeEvent('modelSettings.changed', { modelId, settings: recorded, at: now }, crypto.randomUUID(), now)]);
      return { ok: true };
    },

    async setImageFavourite(fileId: number, favourite: boolean): Promise<ActionResult> {
      await core.whenStarted();
      const current = foldFavourites((await core.db.events.where('type').equals('image.favourited').toArray()) as never);
      if (current.has(fileId) === favourite) return { ok: true };
      const now = Date.now();
      await core.append([makeEvent('image.favourited', { fileId, favourite, at: now }, crypto.randomUUID(), now)]);
      return { ok: true };
    },

    async getFile(fileId: number): Promise<Blob | null> {
      await core.whenStarted();
      return readFile(core.db, fileId);
    },

    async storeInputImage(image: Blob): Promise<{ ok: true; fileId: number } | { ok: false; error: string }> {
      await core.whenStarted();
      if (image.size > MAX_INPUT_IMAGE_BYTES) return { ok: false, error: 'The image is larger than 15 MB' };
      if (!imageMime(new Uint8Array(await image.slice(0, 16).arrayBuffer()))) return { ok: false, error: 'Unsupported image format' };
      const ref = await storeImage(core.db, core.ids, image, Date.now());
      return { ok: true, fileId: ref.fileId };
    },
  };
}

