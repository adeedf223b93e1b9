/**
 * Layout preferences' bounds (spec 001 sections 5 and 9), pure. A stored value is the user's choice within fixed
 * limits (PREFERENCE_CHECKS); what is applied is that value clamped to the window as it is now, so a choice made on a
 * large screen still fits a small one and comes back on the large one.
 */

/** Bounds of a panel split (the code viewer, the scratchpad), in percent: neither side may vanish. */
export const SPLIT_MIN = 20;
export const SPLIT_MAX = 80;

/** Spec 001 section 9 defaults. */
export const DEFAULT_INPUT_HEIGHT = 40;
export const DEFAULT_INPUT_WIDTH = 750;
export const DEFAULT_CONVERSATION_WIDTH = 1200;

/** Spec 001 section 5: input height between 40 and min(max(200, 75% of the window height), 800). */
export const INPUT_HEIGHT_MIN = 40;
export const INPUT_HEIGHT_MAX = 800;
/** Spec 001 section 5: input width between 320 and max(600, window width - 280). */
export const INPUT_WIDTH_MIN = 320;
/** Ours: the widest value stored (a very wide screen); applied widths are clamped to the window anyway. */
export const INPUT_WIDTH_MAX = 4000;
/** Ours: conversation width bounds (the spec gives only the default). */
export const CONVERSATION_WIDTH_MIN = 480;
export const CONVERSATION_WIDTH_MAX = 4000;

export function maxInputHeight(windowHeight: number): number {
  return Math.min(Math.max(200, windowHeight * 0.75), INPUT_HEIGHT_MAX);
}

export function maxInputWidth(windowWidth: number): number {
  return Math.max(600, windowWidth - 280);
}

function clamp(v: number, lo: number, hi: number): number {
  if (!Number.isFinite(v)) return lo;
  return Math.min(Math.max(v, lo), hi);
}

export function clampInputHeight(height: number, windowHeight: number): number {
  return Math.round(clamp(height, INPUT_HEIGHT_MIN, maxInputHeight(windowHeight)));
}

export function clampInputWidth(width: number, windowWidth: number): number {
  return Math.round(clamp(width, INPUT_WIDTH_MIN, maxInputWidth(windowWidth)));
}

export function clampConversationWidth(width: number): number {
  return Math.round(clamp(width, CONVERSATION_WIDTH_MIN, CONVERSATION_WIDTH_MAX));
}
