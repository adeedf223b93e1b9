/**
 * Video rules of spec 000: the per-model defaults of section 9, the validations of section 5 (messages verbatim
 * where the spec quotes them) and the status mapping of section 4. Pure; the engine checks before anything is
 * sent and the gateway applies the defaults again at the edge.
 */
import type { VideoJobStatus, VideoSettings } from './media';

/** Model families the rules name. A model belongs to one by its id (see videoFamily). */
export type VideoFamily =
  | 'longstories'
  | 'kling-video-v2'
  | 'kling'
  | 'seedance-lite'
  | 'seedance'
  | 'veo2'
  | 'veo3'
  | 'hunyuan'
  | 'wan'
  | 'minimax'
  | 'runware'
  | 'other';

/** The family of a video model id ('fal-ai/kling-video/v2/master' is kling-video-v2, 'hailuo-02' is minimax ...). */
export function videoFamily(modelId: string): VideoFamily {
  const id = modelId.toLowerCase();
  if (id.includes('longstories')) return 'longstories';
  if (/kling-video[-/]v2/.test(id)) return 'kling-video-v2';
  if (id.includes('kling')) return 'kling';
  if (id.includes('seedance-lite') || (id.includes('seedance') && id.includes('lite'))) return 'seedance-lite';
  if (id.includes('seedance')) return 'seedance';
  if (id.includes('veo2') || id.includes('veo-2')) return 'veo2';
  if (id.includes('veo3') || id.includes('veo-3')) return 'veo3';
  if (id.includes('hunyuan')) return 'hunyuan';
  if (id.includes('wan')) return 'wan';
  if (id.includes('minimax') || id.includes('hailuo')) return 'minimax';
  if (id.includes('runware')) return 'runware';
  return 'other';
}

/**
 * Spec 001 section 9 (feed facts): Kling videos cost $2.38 for 5 s and $4.76 for 10 s. The default prices of a
 * configured Kling model the operator gives no price for; a video up to 5 s is the 5 s price, a longer one the 10 s.
 */
export const KLING_DEFAULT_PRICES = [
  { seconds: 5, usd: '2.38' },
  { seconds: 10, usd: '4.76' },
] as const;
export function isKlingModel(modelId: string): boolean {
  const f = videoFamily(modelId);
  return f === 'kling' || f === 'kling-video-v2';
}

/** Spec 000 section 9: longstories script length, and the cached lengths that are reset to it. */
export const LONGSTORIES_SCRIPT_SECONDS = 30;
const LONGSTORIES_RESET = new Set([14, 15, 16]);
export const LONGSTORIES_VIDEO_CONFIG = 'kling_v2_1_std_5s';

/** Settings a video request carries besides the shared ones. */
export interface VideoRequestSettings extends VideoSettings {
  videoConfig?: string;
}

/**
 * Spec 000 section 9, video defaults: each family's defaults fill what the settings leave out; longstories' cached
 * script length of 14, 15 or 16 s is reset to 30 s. Returns a new object.
 */
export function applyVideoDefaults(modelId: string, settings: VideoRequestSettings): VideoRequestSettings {
  const s: VideoRequestSettings = { ...settings };
  switch (videoFamily(modelId)) {
    case 'longstories':
      if (s.scriptLength === undefined || LONGSTORIES_RESET.has(s.scriptLength)) s.scriptLength = LONGSTORIES_SCRIPT_SECONDS;
      s.videoConfig ??= LONGSTORIES_VIDEO_CONFIG;
      break;
    case 'seedance':
      s.resolution ??= '1080p';
      break;
    case 'seedance-lite':
      s.resolution ??= '480p';
      break;
    case 'veo2':
    case 'kling':
    case 'kling-video-v2':
      s.duration ??= 5;
      s.aspect_ratio ??= '16:9';
      break;
    case 'hunyuan':
      s.aspect_ratio ??= '16:9';
      s.resolution ??= '720p';
      s.num_frames ??= 129;
      break;
    case 'wan':
      s.aspect_ratio ??= 'auto';
      s.resolution ??= '720p';
      s.num_frames ??= 81;
      s.frames_per_second ??= 16;
      s.enable_safety_checker ??= false;
      break;
    case 'minimax':
      s.prompt_optimizer ??= true;
      break;
    case 'veo3':
    case 'runware':
    case 'other':
      break;
  }
  return s;
}

/** Spec 000 section 5: longest prompt per family (a longer one gets a notice and nothing is sent). */
export const VIDEO_PROMPT_LIMITS: Partial<Record<VideoFamily, { limit: number; label: string }>> = {
  kling: { limit: 2500, label: 'Kling' },
  'kling-video-v2': { limit: 2500, label: 'Kling' },
  veo3: { limit: 3000, label: 'Veo3' },
  runware: { limit: 3000, label: 'Runware' },
  minimax: { limit: 2000, label: 'Hailuo' },
};

/** Spec 000 section 5, verbatim where quoted. */
export const VIDEO_MESSAGES = {
  requiresImage: (modelName: string) => `${modelName} requires an input image. Please select an image to generate a video.`,
  hunyuanNoAttachment: 'No image attachment found. Please add an image by clicking the image icon in the conversation input area before generating video.',
  hunyuanNoData: 'Could not retrieve image data. Please try uploading the image again.',
  unsupportedAspectTitle: 'Unsupported aspect ratio',
  unsupportedAspectText: 'Please use an image with an aspect ratio of 16:9, 9:16 or 1:1.', // ours ("telling the user to use those")
  promptTooLongTitle: 'Prompt too long', // ours: the spec says "notice shown"
  promptTooLong: (label: string, limit: number, length: number) => `${label} prompts can be at most ${limit} characters; yours has ${length}.`, // ours
} as const;

/** Spec 000 section 5: kling-video-v2 accepts images within 0.01 of these ratios. */
export const KLING_V2_RATIOS = [16 / 9, 9 / 16, 1] as const;

export interface VideoCheckInput {
  modelId: string;
  modelName: string;
  prompt: string;
  /** The model only makes video from an image (catalogue capability 'image-to-video-only'). */
  imageToVideoOnly: boolean;
  /** An image is attached. */
  hasImage: boolean;
  /** The attached image's bytes could be read (null: no image). */
  imageReadable: boolean | null;
  /** The attached image's size (null: unknown or none). */
  imageSize: { width: number; height: number } | null;
}

export type VideoCheck = { ok: true } | { ok: false; title: string; text: string };

/** Spec 000 section 5, every video validation in order. Counts characters as code points. */
export function checkVideoRequest(input: VideoCheckInput): VideoCheck {
  const family = videoFamily(input.modelId);
  const limit = VIDEO_PROMPT_LIMITS[family];
  const length = [...input.prompt].length;
  if (limit && length > limit.limit) {
    return { ok: false, title: VIDEO_MESSAGES.promptTooLongTitle, text: VIDEO_MESSAGES.promptTooLong(limit.label, limit.limit, length) };
  }
  if (family === 'hunyuan' && input.imageToVideoOnly) {
    if (!input.hasImage) return { ok: false, title: VIDEO_MESSAGES.hunyuanNoAttachment, text: '' };
    if (input.imageReadable === false) return { ok: false, title: VIDEO_MESSAGES.hunyuanNoData, text: '' };
  }
  if (input.imageToVideoOnly && !input.hasImage) {
    return { ok: false, title: VIDEO_MESSAGES.requiresImage(input.modelName), text: '' };
  }
  if (family === 'kling-video-v2' && input.imageSize) {
    const ratio = input.imageSize.width / input.imageSize.height;
    if (!KLING_V2_RATIOS.some((r) => Math.abs(ratio - r) <= 0.01)) {
      return { ok: false, title: VIDEO_MESSAGES.unsupportedAspectTitle, text: VIDEO_MESSAGES.unsupportedAspectText };
    }
  }
  return { ok: true };
}

/** Spec 000 section 4: the message's video status. */
export type VideoStatus = 'pending' | 'processing' | 'completed' | 'error' | 'cancelled';

/** Spec 000 section 4: COMPLETED gives completed; FAILED or ERROR gives error; CANCELLED cancelled; else processing. */
export function mapVideoStatus(server: string | null | undefined): Exclude<VideoStatus, 'pending'> {
  switch (server) {
    case 'COMPLETED':
      return 'completed';
    case 'FAILED':
    case 'ERROR':
      return 'error';
    case 'CANCELLED':
      return 'cancelled';
    default:
      return 'processing';
  }
}

/** Spec 000 section 9: video polling every 10 s, timeout 20 min after the message, generate call 300000 ms. */
export const VIDEO_POLL_MS = 10_000;
export const VIDEO_TIMEOUT_MS = 20 * 60_000;
export const VIDEO_GENERATE_TIMEOUT_MS = 300_000;

/** The status keeps being polled (pending or processing). */
export function isVideoActive(status: VideoStatus | undefined): boolean {
  return status === 'pending' || status === 'processing';
}

/** Polling has run out: 20 minutes after the message's timestamp. */
export function videoTimedOut(messageTimestamp: number, now: number, timeoutMs = VIDEO_TIMEOUT_MS): boolean {
  return now - messageTimestamp >= timeoutMs;
}

export type { VideoJobStatus };
