/**
 * A conversation as the gateway hands it to a provider (ProviderChatRequest.conversation): the messages already
 * serialised as the upstream gets them, the input-token estimate every hold and usage fallback uses, and the few
 * facts the offline engine reads. Built once per request, on the event loop for a small body or in the body
 * worker for a large one (./parse-pool.ts), so the event loop never walks, copies or serialises a large
 * conversation: its JSON arrives as bytes and goes to the upstream's socket as they are.
 */
import type { ChatMessage } from '../../protocol/api';

/** Characters of the prompt the offline engine analyses (counts, words, arithmetic); the rest is only counted. */
export const OFFLINE_ANALYSIS_CHARS = 32 * 1024;
/** Tokens charged per inline image (spec 000 section 9). */
export const IMAGE_TOKENS = 85;

/** What the offline engine reads of a conversation: its last user turn and a few counts. */
export interface PromptFacts {
  /** The last user turn's text, trimmed, at most OFFLINE_ANALYSIS_CHARS characters. */
  text: string;
  /** Its length before that cap. */
  length: number;
  /** Images in the last user turn. */
  images: number;
  /** User turns in the conversation. */
  userTurns: number;
}

export interface ChatPayload {
  /** The messages array as JSON: a string when built here, UTF-8 bytes when built off the event loop. */
  json: string | Uint8Array;
  /** Estimated input tokens: characters / 4, plus IMAGE_TOKENS per image. */
  inputTokens: number;
  prompt: PromptFacts;
}

export function messageText(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (p.type === 'text' ? p.text : '')).filter((t) => t.length > 0).join('\n');
}

export function imageCount(m: ChatMessage): number {
  return typeof m.content === 'string' ? 0 : m.content.filter((p) => p.type === 'image_url').length;
}

/** Rough token estimate used for holds and when an upstream reports no usage: characters / 4, plus 85 per image. */
export function estimateInputTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  let images = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') chars += m.content.length;
    else {
      // The length messageText would have (its text parts joined by newlines), without building it.
      let parts = 0;
      for (const p of m.content) {
        if (p.type === 'image_url') images++;
        else if (p.text.length > 0) {
          chars += p.text.length;
          parts++;
        }
      }
      if (parts > 1) chars += parts - 1;
    }
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

export function promptFacts(messages: readonly ChatMessage[]): PromptFacts {
  let last: ChatMessage | undefined;
  let userTurns = 0;
  for (const m of messages) {
    if (m.role === 'user') {
      last = m;
      userTurns++;
    }
  }
  last ??= messages[messages.length - 1];
  const whole = last ? messageText(last).trim() : '';
  return {
    text: whole.length > OFFLINE_ANALYSIS_CHARS ? whole.slice(0, OFFLINE_ANALYSIS_CHARS) : whole,
    length: whole.length,
    images: last ? imageCount(last) : 0,
    userTurns,
  };
}

/**
 * The payload of these messages; `bytes` gives the JSON as UTF-8 (to transfer it from a worker without a copy).
 * `text`: their JSON when the caller has it already.
 */
export function chatPayload(messages: readonly ChatMessage[], bytes = false, text = JSON.stringify(messages)): ChatPayload {
  return {
    json: bytes ? new TextEncoder().encode(text) : text,
    inputTokens: estimateInputTokens(messages),
    prompt: promptFacts(messages),
  };
}
