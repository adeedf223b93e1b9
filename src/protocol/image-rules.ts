/**
 * Image rules of spec 000, pure: empty prompts of ghiblify and Upscaler (section 5), image-to-image inputs
 * (section 5), the free flux-schnell counter (sections 6 and 9), the quadrant split of a Midjourney-style grid
 * (splitImages) and the Gemini image model's JSON lines (section 7).
 */

/** Spec 000 section 9: default image model, and its free uses per day (section 6). */
export const DEFAULT_IMAGE_MODEL = 'flux-schnell';
export const FREE_FLUX_MODEL = 'flux-schnell';
export const FREE_FLUX_PER_DAY = 10;
/** Session metadata key holding the 'count:date' value (spec 000 section 6). */
export const FREE_FLUX_METADATA_KEY = 'fluxSchnellFreeUses';
/**
 * A free daily image quota (spec 000 section 6 for flux-schnell; spec 001 section 6's feed: "10 free Hidream images
 * per day"): a priced model of the catalogue whose first uses each day are free, counted in a 'count:date' session
 * metadata value of its own and, on the gateway, per client address and per day (`scope` prefixes its counts).
 */
export interface FreeImageQuota {
  /** How the user reads it: 'flux-schnell', 'Hidream'. */
  label: string;
  metadataKey: string;
  scope: string;
  perDay: number;
}
export const FREE_FLUX_QUOTA: FreeImageQuota = { label: FREE_FLUX_MODEL, metadataKey: FREE_FLUX_METADATA_KEY, scope: '', perDay: FREE_FLUX_PER_DAY };
export const FREE_HIDREAM_QUOTA: FreeImageQuota = { label: 'Hidream', metadataKey: 'hidreamFreeUses', scope: 'hidream:', perDay: 10 };
/** The free quota a model takes part in: flux-schnell by its id, a Hidream model (HiDream-I1 ...) by its name. */
export function freeImageQuota(modelId: string): FreeImageQuota | null {
  if (modelId === FREE_FLUX_MODEL) return FREE_FLUX_QUOTA;
  if (modelId.toLowerCase().includes('hidream')) return FREE_HIDREAM_QUOTA;
  return null;
}

/** Spec 001 section 9: the Upscaler's factors. */
export const UPSCALE_FACTORS = [2, 3, 4] as const;
export type UpscaleFactor = (typeof UPSCALE_FACTORS)[number];
/** The largest image the offline Upscaler makes (pixels): 4096×4096, e.g. 1024×1024 × 4 or 2048×2048 × 2. */
export const UPSCALE_MAX_OUTPUT_PIXELS = 4096 * 4096;

/**
 * Spec 000 section 5: an empty or blank prompt is rejected, except with ghiblify and Upscaler, whose empty prompts
 * are filled with 'Ghiblify' and 'Upscale'. Returns the prompt to send, or null when it must be rejected.
 */
export function imagePrompt(modelId: string, prompt: string): string | null {
  const text = prompt.trim();
  if (text !== '') return text;
  const id = modelId.toLowerCase();
  if (id.includes('ghiblify')) return 'Ghiblify';
  if (id.includes('upscaler')) return 'Upscale';
  return null;
}

/** Spec 000 section 5: how many input images a model takes (gpt-image-1 up to 4, gpt-4o-image 5, others 1). */
export function maxInputImages(modelId: string): number {
  const id = modelId.toLowerCase();
  if (id.includes('gpt-image-1')) return 4;
  if (id.includes('gpt-4o-image')) return 5;
  return 1;
}

/**
 * Adds an input image for image-to-image. Models taking several keep adding up to their limit (a further image is
 * refused: `added` false); others keep one image, and a new one replaces it.
 */
export function addInputImage<T>(modelId: string, current: readonly T[], image: T): { images: T[]; added: boolean } {
  const max = maxInputImages(modelId);
  if (max === 1) return { images: [image], added: true };
  if (current.length >= max) return { images: [...current], added: false };
  return { images: [...current, image], added: true };
}

/** Trims a list of input images to what a newly chosen model takes (the first ones are kept). */
export function fitInputImages<T>(modelId: string, current: readonly T[]): T[] {
  const max = maxInputImages(modelId);
  return max === 1 ? current.slice(-1) : current.slice(0, max);
}

/** The capability of an upscaling model (the gateway's catalogue declares it: src/server/media/catalogue.ts). */
export const UPSCALE_CAPABILITY = 'upscale';

/** What an input image ("Use as input", "Add image") is used by: the requests that carry it (issue 16). */
export const INPUT_IMAGE_USES = ['Image edit', 'Video', 'Upscale'] as const;
export type InputImageUse = (typeof INPUT_IMAGE_USES)[number];

/**
 * Whether a request of this mode to this model carries the input images, and as what: an image model taking
 * image-to-image edits it (an upscaler upscales it), a video model taking image-to-video starts from it. Chat,
 * audio and voice requests, and image or video models without those capabilities, never carry it (the engine's
 * submit path drops it: src/worker/rooms/media/commands.ts).
 */
export function inputImageUse(mode: string, model: { capabilities: readonly string[] }): InputImageUse | null {
  if (mode === 'image' && model.capabilities.includes(UPSCALE_CAPABILITY)) return 'Upscale';
  if (mode === 'image' && model.capabilities.includes('image-to-image')) return 'Image edit';
  if (mode === 'video' && model.capabilities.includes('image-to-video')) return 'Video';
  return null;
}

/** The uses the catalogue offers, in INPUT_IMAGE_USES order (the composer's "Input image: used by ..."). */
export function inputImageUses(models: readonly { modality: string; capabilities: readonly string[] }[]): InputImageUse[] {
  const found = new Set<InputImageUse>();
  for (const m of models) {
    const use = m.modality === 'image' || m.modality === 'video' ? inputImageUse(m.modality, m) : null;
    if (use) found.add(use);
  }
  return INPUT_IMAGE_USES.filter((u) => found.has(u));
}

/** A UTC calendar date, YYYY-MM-DD. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Spec 000 section 6: the free flux-schnell counter, 'count:date'. A value whose date is not today counts as 0 (the
 * counter resets when the date differs); an unreadable value counts as 0 too.
 */
export function freeFluxUsed(value: string | undefined | null, today: string): number {
  if (!value) return 0;
  const m = /^(\d{1,6}):(\d{4}-\d{2}-\d{2})$/.exec(value);
  if (!m || m[2] !== today) return 0;
  return Number(m[1]);
}

/** The counter after one more use today, or null when today's free uses are gone. */
export function takeFreeFlux(value: string | undefined | null, today: string, perDay = FREE_FLUX_PER_DAY): { value: string; left: number } | null {
  const used = freeFluxUsed(value, today);
  if (used >= perDay) return null;
  return { value: `${used + 1}:${today}`, left: perDay - used - 1 };
}

export function freeFluxLeft(value: string | undefined | null, today: string, perDay = FREE_FLUX_PER_DAY): number {
  return Math.max(0, perDay - freeFluxUsed(value, today));
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * splitImages: the four quadrants of a 2x2 grid image, top-left, top-right, bottom-left, bottom-right. An odd size
 * gives the extra pixel to the right and bottom quadrants, so the four cover the image exactly.
 */
export function quadrants(width: number, height: number): Rect[] {
  const w = Math.floor(width / 2);
  const h = Math.floor(height / 2);
  return [
    { x: 0, y: 0, width: w, height: h },
    { x: w, y: 0, width: width - w, height: h },
    { x: 0, y: h, width: w, height: height - h },
    { x: w, y: h, width: width - w, height: height - h },
  ];
}

/**
 * The catalogue capability of a chat model whose stream is the Gemini image model's JSON lines (spec 000 section 7):
 * the engine decodes its reply into text and images (src/worker/rooms/replies/image-lines.ts).
 */
export const IMAGE_LINES_CAPABILITY = 'image-lines';

/** Spec 000 section 7: the Gemini image model's line types and accepted image types. */
export const GEMINI_IMAGE_TYPES = ['png', 'jpeg', 'jpg', 'gif', 'webp'] as const;
export const INVALID_IMAGE_TYPE = '[Invalid image type]';

export type GeminiPart = { type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string };

/**
 * Parses the Gemini image model's stream: JSON lines of `{type: 'text', text}` or `{type: 'image', mimeType, data}`.
 * Feed chunks as they arrive; a line split across chunks is joined. A line that is not JSON is kept as text (a
 * provider that fell back to plain text loses nothing); an image of another type becomes '[Invalid image type]'.
 */
export class GeminiLineParser {
  /** Pieces of the unfinished line: joined once when its newline comes, so a long image line in many chunks costs
   * its length once (not once per chunk). */
  private rest: string[] = [];

  push(chunk: string): GeminiPart[] {
    const nl = chunk.indexOf('\n');
    if (nl === -1) {
      if (chunk !== '') this.rest.push(chunk);
      return [];
    }
    this.rest.push(chunk.slice(0, nl));
    const lines = [this.rest.join(''), ...chunk.slice(nl + 1).split('\n')];
    const last = lines.pop() ?? '';
    this.rest = last === '' ? [] : [last];
    return lines.flatMap((l) => parseGeminiLine(l));
  }

  /** The last line, if the stream ended without a newline. */
  end(): GeminiPart[] {
    const last = this.rest.join('');
    this.rest = [];
    return parseGeminiLine(last);
  }
}

/**
 * Chat models that answer with images in the stream (OpenAI-compatible upstreams such as OpenRouter put them in
 * `delta.images` when asked for `modalities: ['image', 'text']`): Gemini's image models (gemini-2.5-flash-image,
 * gemini-2.0-flash-exp-image-generation, gemini-3-pro-image-preview, ...) and gpt-5-image. Matched on the id's last
 * path segment. The gateway turns their stream into the JSON lines above, so the catalogue marks them image-lines.
 */
export function isImageChatModel(id: string): boolean {
  const last = (id.split('/').pop() ?? id).toLowerCase();
  return /^gemini-[\w.-]*image/.test(last) || last.startsWith('gpt-5-image');
}

function parseGeminiLine(raw: string): GeminiPart[] {
  const line = raw.trim();
  if (line === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return [{ type: 'text', text: raw }];
  }
  if (typeof value !== 'object' || value === null) return [{ type: 'text', text: raw }];
  const v = value as Record<string, unknown>;
  if (v.type === 'text' && typeof v.text === 'string') return [{ type: 'text', text: v.text }];
  if (v.type === 'image') {
    const mime = typeof v.mimeType === 'string' ? v.mimeType.toLowerCase() : '';
    const sub = mime.startsWith('image/') ? mime.slice(6) : mime;
    if (typeof v.data !== 'string' || !(GEMINI_IMAGE_TYPES as readonly string[]).includes(sub)) return [{ type: 'text', text: INVALID_IMAGE_TYPE }];
    return [{ type: 'image', mimeType: `image/${sub === 'jpg' ? 'jpeg' : sub}`, data: v.data }];
  }
  return [{ type: 'text', text: raw }];
}
