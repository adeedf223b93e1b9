/**
 * Image and video calls of spec 000 section 7: POST /api/generate-image and /api/generate-openai-image,
 * POST /api/generate-video and GET /api/generate-video/status. Schemas are zod, so the gateway validates at the
 * edge; the engine imports the types. Pure: no DOM, no Node.
 */
import { z } from 'zod';
import { RequestIdSchema } from './request-id';
import type { PaymentSource } from './stream';
import { NEGATIVE_PROMPT_MAX_CHARS, type ImageSettingName } from './media-limits';

export { DEFAULT_MEDIA_MODEL, IMAGE_SETTING_NAMES, mediaModelOf, NEGATIVE_PROMPT_MAX_CHARS, type ImageSettingName } from './media-limits';

/** Longest prompt any image or video call accepts (the per-family video limits are lower: ./video-rules.ts). */
export const MEDIA_PROMPT_MAX_CHARS = 4000;
/** Most input images of one call (gpt-4o-image takes 5: spec 000 section 5). */
export const MAX_INPUT_IMAGES = 5;
/** Largest data URL of one input image (about 15 MB of image as base64). */
export const MAX_IMAGE_DATA_URL_CHARS = 20 * 1024 * 1024;
/** Most images one call may ask for. */
export const MAX_IMAGES_PER_CALL = 4;

const DataUrl = z
  .string()
  .max(MAX_IMAGE_DATA_URL_CHARS)
  .regex(/^data:image\/(png|jpeg|jpg|webp|gif|bmp|tiff);base64,[A-Za-z0-9+/=]+$/, 'must be a base64 data URL of an image');

/**
 * The settings of an image model served through the OpenAI images API, by family: OpenAI's own models take a
 * count and one of their sizes; the diffusion models other servers (LocalAI and the like) serve take a size, a
 * seed and a negative prompt, which the adapter sends (src/server/media/providers/image-openai.ts).
 */
export function defaultImageSettings(upstreamModel: string): { settings: ImageSettingName[]; resolutions?: string[] } {
  const id = upstreamModel.toLowerCase();
  if (id.includes('gpt-image') || id.includes('gpt-4o-image')) return { settings: ['nImages', 'resolution'], resolutions: ['1024x1024', '1536x1024', '1024x1536'] };
  if (id.includes('dall-e-3')) return { settings: ['resolution'], resolutions: ['1024x1024', '1792x1024', '1024x1792'] };
  if (id.includes('upscaler')) return { settings: ['upscale_factor'] };
  if (id.includes('dall-e')) return { settings: ['nImages', 'resolution'], resolutions: ['256x256', '512x512', '1024x1024'] };
  return { settings: ['nImages', 'width', 'height', 'seed', 'negative_prompt'] };
}

/** Per-model settings kept per model id (spec 000 section 3); every field optional, each within its range. */
export const ImageSettingsSchema = z.object({
  nImages: z.number().int().min(1).max(MAX_IMAGES_PER_CALL).optional(),
  resolution: z.string().regex(/^\d{2,4}x\d{2,4}$|^\d{3,4}p$|^[0-9.]+MP$/).optional(),
  width: z.number().int().min(64).max(2048).optional(),
  height: z.number().int().min(64).max(2048).optional(),
  aspect_ratio: z.string().regex(/^(\d{1,2}:\d{1,2}|auto)$/).optional(),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  guidance_scale: z.number().min(0).max(30).optional(),
  /** Upscalers (spec 001 section 9): 2, 3 or 4. */
  upscale_factor: z.union([z.literal(2), z.literal(3), z.literal(4)]).optional(),
});
export type ImageSettings = z.infer<typeof ImageSettingsSchema>;

export const GenerateImageRequestSchema = ImageSettingsSchema.extend({
  prompt: z.string().max(MEDIA_PROMPT_MAX_CHARS),
  model: z.string().min(1).max(200),
  conversationUUID: z.string().min(1).max(100),
  /** Idempotency key of the charge: the same id twice is one generation, one charge. */
  requestId: RequestIdSchema.optional(),
  showExplicitContent: z.boolean().optional(),
  negative_prompt: z.string().max(NEGATIVE_PROMPT_MAX_CHARS).optional(),
  imageDataUrl: DataUrl.optional(),
  imageDataUrls: z.array(DataUrl).max(MAX_INPUT_IMAGES).optional(),
  /** The same settings nested (the spec says "model settings"); top-level fields win. */
  settings: ImageSettingsSchema.optional(),
});
export type GenerateImageRequest = z.infer<typeof GenerateImageRequestSchema>;

export interface GeneratedImage {
  /** PNG, JPEG, WebP or GIF bytes as base64 (the gateway never answers a provider URL). */
  b64_json: string;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
}

/** Answer of POST /api/generate-image (spec 000 section 7); which fields come depends on the outcome. */
export interface GenerateImageResponse {
  data?: GeneratedImage[];
  cost?: number;
  paymentSource?: PaymentSource | null;
  /** The chosen model cannot do what was asked: this one can (nothing generated, nothing charged). */
  recommendedModel?: string;
  recommendedModelName?: string;
  explanation?: string;
  /** The prompt was judged explicit; with showExplicitContent off nothing is generated (requiresExplicitMode). */
  isNSFW?: boolean;
  requiresExplicitMode?: boolean;
  /** Midjourney-style: one 2x2 grid whose quadrants the client splits into four images (splitImages). */
  task_id?: string;
  runId?: string;
  quadrants?: boolean;
  /** Free flux-schnell uses left today (spec 000 section 6), when the model is flux-schnell. */
  freeUsesLeft?: number;
}

export const VideoSettingsSchema = z.object({
  aspect_ratio: z.string().regex(/^(\d{1,2}:\d{1,2}|auto)$/).optional(),
  duration: z.number().int().min(1).max(60).optional(),
  resolution: z.string().regex(/^\d{3,4}p$/).optional(),
  num_frames: z.number().int().min(1).max(1000).optional(),
  frames_per_second: z.number().int().min(1).max(60).optional(),
  prompt_optimizer: z.boolean().optional(),
  pro_mode: z.boolean().optional(),
  enable_safety_checker: z.boolean().optional(),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  negative_prompt: z.string().max(NEGATIVE_PROMPT_MAX_CHARS).optional(),
  /** longstories: script length in seconds. */
  scriptLength: z.number().int().min(5).max(300).optional(),
});
export type VideoSettings = z.infer<typeof VideoSettingsSchema>;

export const GenerateVideoRequestSchema = VideoSettingsSchema.extend({
  prompt: z.string().trim().min(1, 'Message is required').max(MEDIA_PROMPT_MAX_CHARS),
  model: z.string().min(1).max(200),
  conversationUUID: z.string().min(1).max(100),
  requestId: RequestIdSchema.optional(),
  showExplicitContent: z.boolean().optional(),
  settings: VideoSettingsSchema.optional(),
  imageAttachmentId: z.string().max(100).optional(),
  imageDataUrl: DataUrl.optional(),
  videoConfig: z.string().max(100).optional(),
  directorNotes: z.string().max(MEDIA_PROMPT_MAX_CHARS).optional(),
});
export type GenerateVideoRequest = z.infer<typeof GenerateVideoRequestSchema>;

/**
 * POST /api/generate-video/cancel (ours): the client lost the answer of its generate call (the 300,000 ms deadline,
 * a dropped connection, an engine that went away) and settles the request by its requestId. A job no provider has
 * taken yet is cancelled and its hold given back; a job a provider has is answered as it is, to be polled, delivered
 * and charged once; a request the gateway never saw is marked cancelled, so it is never run if it arrives late.
 */
export const CancelVideoRequestSchema = z.object({
  requestId: RequestIdSchema,
  model: z.string().min(1).max(200).optional(),
});
export type CancelVideoRequest = z.infer<typeof CancelVideoRequestSchema>;
/** Ours: the note of a video request cancelled before any provider had it. */
export const VIDEO_REQUEST_CANCELLED = 'The video request was cancelled before it started. You have not been charged.';

/** Status words of the provider queue (fal's IN_QUEUE / IN_PROGRESS / COMPLETED, plus failures). */
export type VideoJobStatus = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'ERROR' | 'CANCELLED';

/** Answer of POST /api/generate-video. */
export interface GenerateVideoResponse {
  runId: string;
  status: VideoJobStatus;
  model: string;
  video_url: string | null;
  cost: number;
  paymentSource: PaymentSource | null;
}

/** Answer of GET /api/generate-video/status?runId=&modelSlug= (the url field is ours: spec says "not shown"). */
export interface VideoStatusResponse {
  data: { status: VideoJobStatus; video_url: string | null; error: string | null; cost: number; paymentSource: PaymentSource | null };
}

/** Spec 000 section 8: 'Failed image: ...' (nothing charged). */
export const IMAGE_FAILED = 'There was an issue generating your image. You have not been charged.';
/** Spec 000 section 8: the video answer did not have the expected shape. */
export const VIDEO_UNEXPECTED = 'Failed to generate video - unexpected response structure...';
/** Spec 000 section 4: the note of a video still running 20 minutes after its message. */
export const VIDEO_TIMED_OUT = 'Timed out waiting for video generation';
