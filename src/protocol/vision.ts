/**
 * Which models take images (spec 001 section 5: some vision-capable model ids are whitelisted for image input;
 * the o3-mini variants are excluded; the full list is not shown). Ours: the families below, matched on the id's
 * last path segment (so 'openai/gpt-4o' and 'gpt-4o' agree). The catalogue marks them with the 'vision'
 * capability; the engine sends images inline to them (85 tokens each) and has them described for every other model.
 */
const VISION_PATTERNS: readonly RegExp[] = [
  /^chatgpt-4o/,
  /^gpt-4o(?!-(audio|realtime|search|transcribe|mini-(audio|realtime|search|transcribe|tts)))/,
  /^gpt-4\.1/,
  /^gpt-4-turbo/,
  /^gpt-4-vision/,
  /^gpt-5/,
  /^o1(?!-mini)(-|$)/,
  /^o3(-|$)/,
  /^o4-mini/,
  /^claude-(3|sonnet-4|opus-4|haiku-4)/,
  /^claude-(3-5|3-7|3\.5|3\.7)/,
  /^gemini-/,
  /^gemma-3/,
  /^llava/,
  /^bakllava/,
  /^llama-?3\.2-.*vision/,
  /^llama-4/,
  /^qwen.*-vl/,
  /^pixtral/,
  /^mistral-(small|medium)-3/,
  /^grok-.*vision/,
  /^grok-4/,
  /^minicpm-v/,
  /^moondream/,
];

/** The o3-mini variants never take images, whatever matches above. */
const EXCLUDED: readonly RegExp[] = [/^o3-mini/];

export function isVisionModel(id: string): boolean {
  const last = (id.split('/').pop() ?? id).toLowerCase().replace(/:online(\/linkup-deep)?$/, '');
  if (EXCLUDED.some((p) => p.test(last))) return false;
  return VISION_PATTERNS.some((p) => p.test(last));
}

/** Spec 000 section 9: the image description's default model (a Gemini 2.0 flash model), detail and max image size. */
export const IMAGE_DESCRIPTION_DEFAULTS = { model: 'google/gemini-2.0-flash-001', detail: 'detailed', maxImageSizeMb: 10 } as const;

/** A catalogue model takes images inline: the catalogue says so, or its id is on the whitelist. */
export function takesImages(model: { id: string; capabilities: readonly string[] }): boolean {
  return model.capabilities.includes('vision') || isVisionModel(model.id);
}
