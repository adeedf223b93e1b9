/**
 * The explicit-content check of image and video prompts (spec 000 section 6: "the explicit-content preference is
 * passed on image and video calls"). Ours: a word list, matched on whole words in one linear pass. A provider's
 * own safety system still applies on top (its refusal is 'Content Flagged').
 */
const EXPLICIT = new Set(['nsfw', 'nude', 'nudes', 'naked', 'nudity', 'porn', 'porno', 'pornographic', 'explicit', 'sex', 'sexual', 'erotic', 'xxx', 'topless', 'lewd', 'hentai', 'genitals']);

export function isExplicit(prompt: string): boolean {
  const words = prompt.toLowerCase().match(/[a-z]+/g);
  if (!words) return false;
  return words.some((w) => EXPLICIT.has(w));
}
