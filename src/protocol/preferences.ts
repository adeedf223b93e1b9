/**
 * User preferences (spec 001 section 3 "UI preferences persisted", defaults of section 9). Engine data: they
 * survive a reload and reach every tab through the `preferences` query; change them with `setPreferences`.
 * Domains add their preferences here as they are built.
 */
import { DEFAULT_TTS_MODEL, ELEVENLABS_DEFAULTS, type ElevenLabsSettings } from './speech-defaults';

import * as layout from './layout';

export type Theme = 'dark' | 'light' | 'system';

export interface Preferences {
  /** Colour scheme; spec 001 section 9: dark. */
  theme: Theme;
  /** Spec 000 section 9: max-tokens default 8192. */
  maxTokens: number;
  /** Spec 001 section 9: false. */
  autoGenerateTitle: boolean;
  hasBeenAskedAboutAutoTitle: boolean;
  /** Spec 001 section 9: true. */
  enterSendsMessage: boolean;
  /** Model a new conversation starts with; null = the catalogue's default. */
  defaultModel: string | null;
  /** Spec 001 section 9: true. */
  showThinkingBlocks: boolean;
  /** Spec 001 section 3: passed on image and video calls (spec 000 section 6). Ours: off by default. */
  showExplicitContent: boolean;
  /** Web search on for new messages (spec 001 section 3: linkupEnabled). Ours: off by default (it costs money). */
  linkupEnabled: boolean;
  /** Spec 001 section 9: standard. */
  linkupDepth: 'standard' | 'deep';
  /** Spec 001 section 9: ask. 'ask' offers to scrape pasted URLs, 'always' scrapes them, 'never' leaves them. */
  urlScrapingPreference: 'ask' | 'always' | 'never';
  /** The code viewer's language when a block names none it runs; falls back to python (issue 8 item 5). */
  codeLanguage: CodeLanguage;
  /** Spec 001 section 9: code viewer split 50 (percent of the page's width the viewer takes). */
  codeViewerHorizontalSplit: number;
  /** Spec 001 section 9: scratchpad split 50 (percent of the page's width the scratchpad takes). */
  scratchpadHorizontalSplit: number;
  /** Spec 001 section 3: read replies aloud when they finish (spec 000 section 4, the pending flag). Ours: off. */
  autoGenerateAudio: boolean;
  /** Spec 001 section 9: gpt-4o-mini-tts. The model "Read aloud" and auto audio use (when the gateway offers it). */
  preferredTTSModel: string;
  /** Spec 001 section 3: the voice chosen per speech model id. */
  ttsVoicePreferences: Record<string, string>;
  /** Spec 001 section 3: the speed chosen per speech model id. */
  ttsSpeedPreferences: Record<string, number>;
  /** Spec 001 sections 5 and 9: ElevenLabs stability, similarity_boost (0.75, docs/decisions.md), style. */
  elevenLabsSettings: ElevenLabsSettings;
  // ---- layout and interface (issue 10; src/ui/layout/) ----
  /** The sidebar column shows on wide screens (a phone opens it with Menu). */
  sidebarOpen: boolean;
  /** The page links (Wallet, Settings, ...) show as a compact row of icons. */
  navbarCollapsed: boolean;
  /** No "Message actions" menu on messages. */
  messageMenuDisabled: boolean;
  /** The sidebar search's last term, restored on the next visit. */
  lastUsedSearchTerm: string;
  /** The conversation list (search, folders, conversations) shows in the sidebar. */
  conversationsSidebarVisible: boolean;
  /** Folders shown open in the sidebar's folder tree. */
  expandedFolderIds: number[];
  /** Widest a conversation's messages read, px; spec 001 section 9: 1200. */
  conversationWidth: number;
  /** Message input height, px; spec 001 section 9: 40 (clamped to the window, src/protocol/layout.ts). */
  inputHeight: number;
  /** Message input width, px; spec 001 section 9: 750 (clamped to the window). */
  inputWidth: number;
  /** The install banner is not offered again. */
  installBannerHidden: boolean;
  /** Ours: until when (ms since the epoch) "Not now" put off the recovery-code prompt (src/protocol/recovery-prompt.ts). */
  recoveryPromptSnoozedUntil: number;
  /** Spec 001 section 9: true. Long pasted text becomes an attached text file. */
  largeTextPasteToFile: boolean;
  /** Example prompts on an empty conversation. */
  showExamplePromptsCarousel: boolean;
  /** Spec 001 section 5: images over 3.5 MB are compressed when this is on (the default); off, they are refused. */
  imageCompressionEnabled: boolean;
  /**
   * Instructions (system prompt) a new conversation starts with (issue 16); '' = the built-in 'Standard'. The
   * conversation keeps its own copy: changing this later does not change conversations already made.
   */
  defaultInstructions: string;
}

/** Languages the code viewer runs (Python) or previews (HTML). */
export type CodeLanguage = 'python' | 'html';
// The split bounds live with the layout bounds: the first page reads them without this module (docs/benchmarks.md).
import { SPLIT_MAX, SPLIT_MIN } from './layout';
export { SPLIT_MAX, SPLIT_MIN };

export const DEFAULT_PREFERENCES: Preferences = {
  theme: 'dark',
  maxTokens: 8192,
  autoGenerateTitle: false,
  hasBeenAskedAboutAutoTitle: false,
  enterSendsMessage: true,
  defaultModel: null,
  showThinkingBlocks: true,
  showExplicitContent: false,
  linkupEnabled: false,
  linkupDepth: 'standard',
  urlScrapingPreference: 'ask',
  codeLanguage: 'python',
  codeViewerHorizontalSplit: 50,
  scratchpadHorizontalSplit: 50,
  autoGenerateAudio: false,
  preferredTTSModel: DEFAULT_TTS_MODEL,
  ttsVoicePreferences: {},
  ttsSpeedPreferences: {},
  elevenLabsSettings: { ...ELEVENLABS_DEFAULTS },
  sidebarOpen: true,
  navbarCollapsed: false,
  messageMenuDisabled: false,
  lastUsedSearchTerm: '',
  conversationsSidebarVisible: true,
  expandedFolderIds: [],
  conversationWidth: layout.DEFAULT_CONVERSATION_WIDTH,
  inputHeight: layout.DEFAULT_INPUT_HEIGHT,
  inputWidth: layout.DEFAULT_INPUT_WIDTH,
  installBannerHidden: false,
  recoveryPromptSnoozedUntil: 0,
  largeTextPasteToFile: true,
  showExamplePromptsCarousel: true,
  imageCompressionEnabled: true,
  defaultInstructions: '',
};

/** Longest search term kept; most folders kept open. */
export const SEARCH_TERM_MAX = 200;
export const EXPANDED_FOLDERS_MAX = 1000;

/** Longest system prompt kept on a conversation, a preset or the default instructions. */
export const INSTRUCTIONS_MAX_CHARS = 20_000;

/** Bounds of maxTokens: a positive whole number, no larger than the biggest context window we know of. */
export const MAX_TOKENS_LIMIT = 1_000_000;

/**
 * What a valid value of each preference is. A mapped type: a preference added above without its check here is a
 * type error. Used by the engine's setPreferences and by the log's validation of `preferences.changed`.
 */
export const PREFERENCE_CHECKS: { readonly [K in keyof Preferences]: (v: unknown) => boolean } = {
  theme: (v) => v === 'dark' || v === 'light' || v === 'system',
  maxTokens: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= MAX_TOKENS_LIMIT,
  autoGenerateTitle: (v) => typeof v === 'boolean',
  hasBeenAskedAboutAutoTitle: (v) => typeof v === 'boolean',
  enterSendsMessage: (v) => typeof v === 'boolean',
  defaultModel: (v) => v === null || (typeof v === 'string' && v !== ''),
  showThinkingBlocks: (v) => typeof v === 'boolean',
  showExplicitContent: (v) => typeof v === 'boolean',
  linkupEnabled: (v) => typeof v === 'boolean',
  linkupDepth: (v) => v === 'standard' || v === 'deep',
  urlScrapingPreference: (v) => v === 'ask' || v === 'always' || v === 'never',
  codeLanguage: (v) => v === 'python' || v === 'html',
  codeViewerHorizontalSplit: (v) => isSplit(v),
  scratchpadHorizontalSplit: (v) => isSplit(v),
  autoGenerateAudio: (v) => typeof v === 'boolean',
  preferredTTSModel: (v) => typeof v === 'string' && v !== '' && v.length <= 100,
  ttsVoicePreferences: (v) => isSmallMap(v, (x) => typeof x === 'string' && x !== '' && x.length <= 100),
  ttsSpeedPreferences: (v) => isSmallMap(v, (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0.25 && x <= 4),
  elevenLabsSettings: (v) => isElevenLabs(v),
  sidebarOpen: (v) => typeof v === 'boolean',
  navbarCollapsed: (v) => typeof v === 'boolean',
  messageMenuDisabled: (v) => typeof v === 'boolean',
  lastUsedSearchTerm: (v) => typeof v === 'string' && v.length <= SEARCH_TERM_MAX,
  conversationsSidebarVisible: (v) => typeof v === 'boolean',
  expandedFolderIds: (v) => Array.isArray(v) && v.length <= EXPANDED_FOLDERS_MAX && v.every((x) => Number.isSafeInteger(x)),
  conversationWidth: (v) => isWhole(v, layout.CONVERSATION_WIDTH_MIN, layout.CONVERSATION_WIDTH_MAX),
  inputHeight: (v) => isWhole(v, layout.INPUT_HEIGHT_MIN, layout.INPUT_HEIGHT_MAX),
  inputWidth: (v) => isWhole(v, layout.INPUT_WIDTH_MIN, layout.INPUT_WIDTH_MAX),
  installBannerHidden: (v) => typeof v === 'boolean',
  recoveryPromptSnoozedUntil: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0,
  largeTextPasteToFile: (v) => typeof v === 'boolean',
  showExamplePromptsCarousel: (v) => typeof v === 'boolean',
  imageCompressionEnabled: (v) => typeof v === 'boolean',
  defaultInstructions: (v) => typeof v === 'string' && v.length <= INSTRUCTIONS_MAX_CHARS,
};

/** A plain object of at most 50 entries whose values pass `ok` (the per-model speech choices). */
function isSmallMap(v: unknown, ok: (x: unknown) => boolean): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= 50 && entries.every(([k, x]) => k.length > 0 && k.length <= 100 && ok(x));
}

function isElevenLabs(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const unit = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;
  return Object.keys(o).length === 3 && unit(o.stability) && unit(o.similarity_boost) && unit(o.style);
}

function isWhole(v: unknown, min: number, max: number): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

function isSplit(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= SPLIT_MIN && v <= SPLIT_MAX;
}

export function isPreferenceKey(key: string): key is keyof Preferences {
  return Object.prototype.hasOwnProperty.call(PREFERENCE_CHECKS, key);
}

/** The first problem with a set of changes ("maxTokens is not valid: 0"), or null when every field is valid. */
export function checkPreferenceChanges(changes: unknown): string | null {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) return 'changes must be an object';
  for (const [key, value] of Object.entries(changes)) {
    if (!isPreferenceKey(key)) return `unknown preference '${key}'`;
    if (!PREFERENCE_CHECKS[key](value)) return `${key} is not valid: ${JSON.stringify(value)}`;
  }
  return null;
}
