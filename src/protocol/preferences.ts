/**
 * User preferences (spec 001 section 3 "UI preferences persisted", defaults of section 9). Engine data: they
 * survive a reload and reach every tab through the `preferences` query; change them with `setPreferences`.
 * Domains add their preferences here as they are built.
 */
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
}

export const DEFAULT_PREFERENCES: Preferences = {
  theme: 'dark',
  maxTokens: 8192,
  autoGenerateTitle: false,
  hasBeenAskedAboutAutoTitle: false,
  enterSendsMessage: true,
  defaultModel: null,
  showThinkingBlocks: true,
};
