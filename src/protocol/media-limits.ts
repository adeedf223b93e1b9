/**
 * The parts of the image and video calls that the view needs (./media.ts re-exports them), kept apart from the zod
 * schemas so that the first page's script does not carry zod. Pure.
 */

/** Spec 000 section 9: default image model flux-schnell, video longstories. */
export const DEFAULT_MEDIA_MODEL = { image: 'flux-schnell', video: 'longstories' } as const;

/**
 * The model an image or video request goes to: `chosen` when the catalogue has it, else the spec's default when it
 * has that, else its first model of the modality ('' when it has none). The view and the engine share it, so a
 * request sent with no model (the catalogue had not reached the tab yet) goes where the view would have sent it.
 */
export function mediaModelOf(mode: 'image' | 'video', models: readonly { id: string; modality: string }[], chosen = ''): string {
  const ofMode = models.filter((m) => m.modality === mode);
  return (ofMode.find((m) => m.id === chosen) ?? ofMode.find((m) => m.id === DEFAULT_MEDIA_MODEL[mode]) ?? ofMode[0])?.id ?? '';
}

/** Longest negative prompt. */
export const NEGATIVE_PROMPT_MAX_CHARS = 2000;
/**
 * The per-model settings an image model takes (spec 000 section 3: "shown as that model's controls"); each image
 * model of the catalogue lists its own (ModelInfo.imageSettings) and the composer shows those controls only.
 */
export const IMAGE_SETTING_NAMES = ['nImages', 'resolution', 'width', 'height', 'aspect_ratio', 'seed', 'guidance_scale', 'negative_prompt', 'upscale_factor'] as const;
export type ImageSettingName = (typeof IMAGE_SETTING_NAMES)[number];

