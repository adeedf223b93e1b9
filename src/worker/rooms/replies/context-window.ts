/**
 * The context window (issue 6 item 9): what of a conversation's history a request carries. A long conversation
 * must keep working, so the engine sends what fits the model's context length rather than everything:
 *
 *  - system messages (the system prompt and instructions) are always kept, first;
 *  - then the newest messages, walking back from the prompt being answered, while they fit;
 *  - room is left for the reply (maxTokens), and the gateway's cap of 1,000 messages per request is respected;
 *  - the kept history starts at a user message (a reply without its question confuses models);
 *  - the newest message is always sent, even alone over budget: the provider then says plainly that it is too
 *    long ('Too many input tokens'), which is better than sending nothing.
 *
 * Pure: the same function gives the engine its request and the view the "older messages not sent" marker.
 */
import type { ChatMessage } from '../../../protocol/api';
import { messageTokens } from '../../../shared/tokens';

/** Context length assumed for a model whose catalogue entry gives none (docs/decisions.md). */
export const DEFAULT_CONTEXT_LENGTH = 32_768;
/** The gateway's limit on messages per request (StreamGptRequestSchema). */
export const MAX_REQUEST_MESSAGES = 1000;
/**
 * Share of the context the estimate may fill: token counts are estimates (characters / 4), so a margin keeps a
 * request that "fits" from being refused by the provider's real tokenizer.
 */
export const CONTEXT_SAFETY = 0.9;

export interface ContextWindowInput<M extends Pick<ChatMessage, 'role' | 'content'>> {
  /** System prompt and instructions: always sent. */
  system: readonly M[];
  /** The conversation, oldest first, ending with the prompt being answered. */
  history: readonly M[];
  /** The model's context length in tokens (catalogue); undefined = DEFAULT_CONTEXT_LENGTH. */
  contextLength: number | undefined;
  /** Tokens kept free for the reply. */
  maxTokens: number;
}

export interface ContextWindow<M> {
  /** What the request carries: system messages, then the kept history. */
  messages: M[];
  /** How many of the oldest history messages were left out to fit (0 when all fitted, see fitContext). */
  omitted: number;
  /** Estimated input tokens of `messages`. */
  tokens: number;
  /** The token budget the input had to fit. */
  budget: number;
}

/** The input budget of a model: its context, less the room for the reply (at most half the context), with margin. */
export function inputBudget(contextLength: number | undefined, maxTokens: number): number {
  const context = contextLength && contextLength > 0 ? contextLength : DEFAULT_CONTEXT_LENGTH;
  const reply = Math.min(Math.max(0, maxTokens), Math.floor(context / 2));
  return Math.floor((context - reply) * CONTEXT_SAFETY);
}

export function fitContext<M extends Pick<ChatMessage, 'role' | 'content'>>(input: ContextWindowInput<M>): ContextWindow<M> {
  const budget = inputBudget(input.contextLength, input.maxTokens);
  const { system, history } = input;
  let used = 0;
  for (const m of system) used += messageTokens(m);
  const maxHistory = Math.max(1, MAX_REQUEST_MESSAGES - system.length);
  let start = history.length;
  while (start > 0 && history.length - start < maxHistory) {
    const cost = messageTokens(history[start - 1] as M);
    // The newest message always goes, even alone over budget.
    if (start < history.length && used + cost > budget) break;
    used += cost;
    start--;
  }
  const cut = start;
  // Begin at a user message: drop leading replies whose question did not fit (never the newest message).
  while (start < history.length - 1 && (history[start] as M).role !== 'user') {
    used -= messageTokens(history[start] as M);
    start++;
  }
  // Omitted means left out for room. When everything fitted, a leading reply dropped here is one whose question was
  // never history (a failed prompt whose partial reply was kept, a deleted prompt): not sent, but not for lack of
  // room, so no "not sent ... context window" note for it (issue 16 item 9).
  return { messages: [...system, ...history.slice(start)], omitted: cut === 0 ? 0 : start, tokens: used, budget };
}
