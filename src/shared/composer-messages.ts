/**
 * The strings of ./messages.ts that the first page shows (the composer and the sidebar), kept apart so the page does
 * not carry the whole catalogue (docs/benchmarks.md, "cold start"). messages.ts re-exports them and builds its
 * catalogues from them: one place for each string.
 */

/**
 * Modes whose capability is not built yet (spec 000 section 2 lists them; issue 6: "never silent"). Ours: the spec
 * gives no wording for a mode that does not exist yet.
 */
export const MODE_UNAVAILABLE: Readonly<Record<'image' | 'video' | 'audio' | 'voice', string>> = {
  image: 'Image generation is not available yet. Switch to Chat to send a message.',
  video: 'Video generation is not available yet. Switch to Chat to send a message.',
  audio: 'Audio generation is not available yet. Switch to Chat to send a message.',
  voice: 'Voice conversations are not available yet. Switch to Chat to send a message.',
};

/** Web search (spec 000 section 2: online=true turns it on). Ours: why the switch cannot be turned on yet. */
export const WEB_SEARCH_UNAVAILABLE = 'Web search is not available: no search provider is configured.';

/** The 402 notice (spec 000 section 8): its title and text (spec 001 section 8, InsufficientBalance) and its action. */
export const INSUFFICIENT_BALANCE = {
  title: 'Insufficient balance',
  text: 'Add funds to your balance and try again.',
  goToWallet: 'Go to wallet',
} as const;

/** Spec 000 (Duplicate): the suffix of a duplicated conversation's name. */
export const COPY_SUFFIX = ' (Copy)';
