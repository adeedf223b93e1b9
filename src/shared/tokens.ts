/**
 * Token counts of the composer (spec 000 sections 3 and 9): conversation, input, total and maxTokens, with each
 * inline image counted as 85 tokens, and the thanks detector. Pure; the view debounces the counting by 400 ms.
 *
 * Counting is an estimate (characters / 4), the same rule the gateway uses when an upstream reports no usage
 * (src/server/providers/offline.ts): a real tokenizer per model would cost megabytes of tables for a number that
 * only guides the user and the context-window trimming, which keeps a margin for the difference.
 */
import type { ChatMessage, ChatPart } from '../protocol/api';

/** Spec 000 section 9: each inline image counts 85 tokens. */
export const IMAGE_TOKENS = 85;
/** Spec 000 section 9: token counting (and instruction persistence) is debounced 400 ms. */
export const TOKEN_COUNT_DEBOUNCE_MS = 400;
/** Spec 000 section 9: the thanks detector applies to messages of at most 200 characters. */
export const THANKS_MAX_CHARS = 200;
/** Fixed cost of one message in a chat request (role and separators), as OpenAI documents it for its chat format. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export interface TokenCounts {
  /** The conversation's messages as they would be sent. */
  conversation: number;
  /** The text (and images) in the composer. */
  input: number;
  /** conversation + input. */
  total: number;
  /** The max-tokens setting: room kept for the reply. */
  maxTokens: number;
}

export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens of a prompt: its text, plus 85 per inline image part. */
export function promptTokens(prompt: string | readonly ChatPart[]): number {
  if (typeof prompt === 'string') return textTokens(prompt);
  let chars = 0;
  let images = 0;
  for (const p of prompt) {
    if (p.type === 'text') chars += p.text.length;
    else images++;
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

/** Tokens one message takes in a request (its content plus the per-message overhead). */
export function messageTokens(m: Pick<ChatMessage, 'content'>): number {
  return promptTokens(m.content) + MESSAGE_OVERHEAD_TOKENS;
}

export function countTokens(history: readonly Pick<ChatMessage, 'content'>[], input: string, inputImages: number, maxTokens: number): TokenCounts {
  let conversation = 0;
  for (const m of history) conversation += messageTokens(m);
  const inputTokens = input.length === 0 && inputImages === 0 ? 0 : textTokens(input) + inputImages * IMAGE_TOKENS;
  return { conversation, input: inputTokens, total: conversation + inputTokens, maxTokens };
}

const THANKS = /\b(?:thanks?|thank\s*(?:you|u)|thx|thnx|tysm|ty|cheers|much\s+appreciated|appreciate\s+(?:it|that|you))\b|\bmerci\b|\bdanke\b|\bgracias\b|\bgrazie\b|\bobrigad[oa]\b/i;

/**
 * The thanks detector (spec 000 sections 3 and 9): a short message (at most 200 characters) that thanks the model
 * gets sentiment 'thankful'. Longer messages are questions or tasks that merely contain a "thanks".
 */
export function detectSentiment(text: string): 'thankful' | undefined {
  const t = text.trim();
  if (t.length === 0 || t.length > THANKS_MAX_CHARS) return undefined;
  return THANKS.test(t) ? 'thankful' : undefined;
}
