/**
 * Image and video commands (spec 000 sections 4 to 6): the submit flow's image and video handlers (validate, check,
 * create the conversation if new, the user message, the pending assistant message, then POST /api/generate-image
 * or /api/generate-video), per-model settings, gallery favourites and the files the view shows. The video status
 * pipeline (../services/media/video-poller.ts) is started here, once the engine has started.
 */
import { makeEvent } from '../../events/catalogue';
import type { ImageRef, ModelSettings } from '../../events/model';
import type { ModelInfo } from '../../protocol/api';
import type { ActionResult, MediaHandlers, MediaSubmitInput, SendMessageResult } from '../../protocol/engine';
import { fitInputImages, imagePrompt } from '../../protocol/image-rules';
import { VIDEO_GENERATE_TIMEOUT_MS, checkVideoRequest } from '../../protocol/video-rules';
import { VIDEO_UNEXPECTED, type GenerateImageRequest, type GenerateVideoRequest } from '../../protocol/media';
import { foldFavourites, foldModelSettings, MODEL_SETTINGS_EVENT } from '../../projections/model-settings';
import type { EngineCore } from '../core';
import { classifyModelError } from '../services/errors';
import { gateway, GatewayError } from '../services/gateway';
import { MESSAGE_REQUIRED } from '../services/messages';
import { dataUrlOf, readFile, storeImage } from '../services/media/files';
import { imageMime, imageSize } from '../services/media/image-size';
import { runImage } from '../services/media/image-run';
import { openMediaTurn } from '../services/media/turn';
import { VideoPoller } from '../services/media/video-poller';
import { ReplyStreamParser } from '../services/stream-parser';
import type { LiveReply } from '../services/reply-runner';
import { isPending } from './chat';

const LOCAL_STORAGE = 'Local storage unavailable';

/** Largest image accepted as an input (spec 001's upload limit is the attachments' concern; this bounds the call). */
export const MAX_INPUT_IMAGE_BYTES = 15 * 1024 * 1024;

export function mediaCommands(core: EngineCore): MediaHandlers {
  const poller = new VideoPoller(core);
  core.disposers.push(() => poller.stop());
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

  async function modelFor(id: string, modality: 'image' | 'video'): Promise<ModelInfo | string> {
    if (core.models$.value.models.length === 0) await core.loadModels();
    const model = core.models$.value.models.find((m) => m.id === id);
    if (!model) return `Unknown model: ${id}`;
    if (model.modality !== modality) return `${model.name} is not a${modality === 'image' ? 'n image' : ' video'} model`;
    return model;
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
  function pendingReply(messageId: number, userMessageId: number, slug: string): LiveReply {
    const reply: LiveReply = { messageId, userMessageId, slug, requestId: '', parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
    core.live.set(messageId, reply);
    return reply;
  }

  function settle(reply: LiveReply): void {
    core.live.delete(reply.messageId);
    core.live$.next(reply.slug);
    void core.refreshSession();
  }

  async function begin(input: MediaSubmitInput, mode: 'image' | 'video'): Promise<{ ok: false; result: SendMessageResult } | { ok: true; model: ModelInfo; prompt: string; settings: ModelSettings; inputs: ImageRef[] }> {
    await core.whenStarted();
    if (!core.storageOk) return { ok: false, result: { ok: false, error: LOCAL_STORAGE, notified: true } };
    const model = await modelFor(input.model, mode);
    if (typeof model === 'string') return { ok: false, result: { ok: false, error: model } };
    const prompt = mode === 'image' ? imagePrompt(model.id, input.prompt) : input.prompt.trim() || null;
    if (prompt === null) return { ok: false, result: { ok: false, error: MESSAGE_REQUIRED } };
    if (input.slug && isPending(core, input.slug)) return { ok: false, result: { ok: false, error: 'Please wait for the current response to complete.' } };
    const settings = { ...(await settingsOf(model.id)), ...input.settings };
    const inputs = await inputRefs(mode === 'image' ? fitInputImages(model.id, input.inputImageIds ?? []) : (input.inputImageIds ?? []).slice(0, 1));
    return { ok: true, model, prompt, settings, inputs };
  }

  /** Steps 4 to 6 in one append, with the pending reply live before it commits (the view never shows it empty). */
  async function openAndAppend(slug: string | null, prompt: string, model: ModelInfo, mode: 'image' | 'video', settings: ModelSettings, inputs: ImageRef[]) {
    const turn = await openMediaTurn(core, { slug, prompt, model: model.id, mode, settings, inputs, now: Date.now() });
    if ('error' in turn) return { ok: false as const, result: { ok: false, error: turn.error } satisfies SendMessageResult };
    const reply = pendingReply(turn.assistant.id, turn.user.id, turn.conversation.slug);
    try {
      await core.append(turn.events);
    } catch {
      core.live.delete(reply.messageId);
      return { ok: false as const, result: { ok: false, error: LOCAL_STORAGE, notified: true } satisfies SendMessageResult };
    }
    return { ok: true as const, turn, reply };
  }

  async function submitImage(input: MediaSubmitInput): Promise<SendMessageResult> {
    const checked = await begin(input, 'image');
    if (!checked.ok) return checked.result;
    const { model, prompt, settings, inputs } = checked;
    const opened = await openAndAppend(input.slug, prompt, model, 'image', settings, inputs);
    if (!opened.ok) return opened.result;
    const { turn, reply } = opened;
    const request: GenerateImageRequest = { prompt, model: model.id, conversationUUID: turn.conversation.uuid, requestId: crypto.randomUUID(), showExplicitContent: core.preferences$.value.showExplicitContent, ...settings };
    const urls = await Promise.all(inputs.map(async (r) => dataUrlOf((await readFile(core.db, r.fileId)) as Blob)));
    if (urls.length === 1) request.imageDataUrl = urls[0] as string;
    else if (urls.length > 1) request.imageDataUrls = urls;
    void runImage(core, reply, request)
      .catch((error: unknown) => console.error('Image failed to record', error))
      .finally(() => settle(reply));
    return { ok: true, slug: turn.conversation.slug, userMessageId: turn.user.id };
  }

  async function submitVideo(input: MediaSubmitInput): Promise<SendMessageResult> {
    const checked = await begin(input, 'video');
    if (!checked.ok) return checked.result;
    const { model, prompt, settings, inputs } = checked;
    const image = inputs[0];
    const blob = image ? await readFile(core.db, image.fileId) : null;
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
    const opened = await openAndAppend(input.slug, prompt, model, 'video', settings, inputs);
    if (!opened.ok) return opened.result;
    const { turn, reply } = opened;
    const { nImages: _n, width: _w, height: _h, guidance_scale: _g, voice: _v, ...videoSettings } = settings;
    const request: GenerateVideoRequest = { prompt, model: model.id, conversationUUID: turn.conversation.uuid, requestId: crypto.randomUUID(), showExplicitContent: core.preferences$.value.showExplicitContent, ...videoSettings };
    if (blob) request.imageDataUrl = await dataUrlOf(blob);
    void (async () => {
      const base = { messageId: turn.assistant.id, conversationSlug: turn.conversation.slug };
      try {
        const answer = await gateway.generateVideo(request, AbortSignal.timeout(VIDEO_GENERATE_TIMEOUT_MS));
        if (typeof answer?.runId !== 'string' || answer.runId === '') throw new Error(VIDEO_UNEXPECTED);
        const at = Date.now();
        await core.append([makeEvent('video.requested', { ...base, runId: answer.runId, model: model.id, at }, crypto.randomUUID(), at)]);
      } catch (error) {
        const at = Date.now();
        const body = error instanceof GatewayError ? error.body : null;
        const message = body?.message ?? (error instanceof Error ? error.message : String(error));
        core.notify(classifyModelError({ status: error instanceof GatewayError ? error.status : undefined, code: body?.error, message, body }));
        await core.append([makeEvent('reply.failed', { ...base, userMessageId: turn.user.id, error: message, keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at }, crypto.randomUUID(), at)]);
      }
    })()
      .catch((error: unknown) => console.error('Video request failed to record', error))
      .finally(() => settle(reply));
    return { ok: true, slug: turn.conversation.slug, userMessageId: turn.user.id };
  }

  return {
    generateImage: submitImage,
    generateVideo: submitVideo,

    async setModelSettings(modelId: string, settings: ModelSettings): Promise<ActionResult> {
      await core.whenStarted();
      const now = Date.now();
      await core.append([makeEvent('modelSettings.changed', { modelId, settings, at: now }, crypto.randomUUID(), now)]);
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

