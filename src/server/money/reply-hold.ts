/**
 * How much a chat reply reserves before its upstream is called (docs/gateway.md, "Holds"): the input tokens
 * estimated from the messages (characters / 4, 85 per image: the same estimate used when an upstream reports no
 * usage) plus the output budget, at the model's prices. The output budget is the request's maxTokens, or the
 * spec's default of 8192 when it has none (spec 000, "Max-tokens default 8192"), capped at 131,072; the gateway sends
 * that budget upstream as max_tokens, so a provider that honours it cannot produce more than was held.
 */
import { replyCostMicro, type PriceUnits } from './amounts';

/** Output budget of a paid request that sets no maxTokens (spec 000: max-tokens default 8192). */
export const DEFAULT_OUTPUT_TOKENS = 8192;
/** Largest output budget a hold covers; a larger maxTokens is lowered to it. */
export const MAX_OUTPUT_TOKENS = 131_072;
export { HOLD_TTL_MS } from './paid-call';
/** How often a gateway sweeps expired holds (also once at startup). */
export const HOLD_SWEEP_INTERVAL_MS = 60_000;

export interface ReplyHoldPlan {
  /** max_tokens to send upstream. */
  outputTokens: number;
  inputTokens: number;
  /** The hold: the most this reply can cost. */
  maxUsdMicro: bigint;
}

/** `inputTokens`: the conversation's estimate (ChatPayload.inputTokens, body/chat-payload.ts). */
export function planReplyHold(price: PriceUnits, inputTokens: number, maxTokens: number | undefined): ReplyHoldPlan {
  const outputTokens = Math.min(maxTokens ?? DEFAULT_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS);
  return { outputTokens, inputTokens, maxUsdMicro: replyCostMicro(price, inputTokens, outputTokens) };
}
