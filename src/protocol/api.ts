/**
 * Request and response shapes of the gateway calls used so far (spec 000 section 7, spec 001 section 7).
 * Schemas are zod so the gateway validates at the edge; the worker imports only the types.
 */
import type { ImageSettingName } from './media';
import { z } from 'zod';
import { RequestIdSchema } from './request-id';
import { samplingShape, type SamplingName } from './sampling';

/** Error body of every non-2xx JSON answer. */
export interface ErrorBody {
  error: string;
  message: string;
  /** 402 only: the balance needed, in nano (spec 000 section 8). */
  requiredBalance?: string;
  /** 402 only: the same amount in USD (the request's hold, docs/protocol.md). */
  requiredUsd?: string;
}

/**
 * The gateway's code for a provider that answered 413 (the conversation is too long for it right now: spec 000
 * section 8 rule 5, "Context Memory is indexing your conversation"), distinct from the gateway's own
 * PAYLOAD_TOO_LARGE body limit. The message is the provider's, so the time and token count it names reach the notice.
 */
export const CONTEXT_TOO_LONG = 'CONTEXT_TOO_LONG';

export const ChatPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string(), detail: z.enum(['low', 'high', 'auto']).optional() }) }),
]);
export type ChatPart = z.infer<typeof ChatPartSchema>;

export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(ChatPartSchema)]),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const StreamGptRequestSchema = z.object({
  model: z.string().min(1).max(200),
  messages: z.array(ChatMessageSchema).min(1).max(1000),
  conversationUUID: z.string().min(1).max(100),
  /** Idempotency key of the charge; the engine sends the pending assistant message's request id. */
  requestId: RequestIdSchema.optional(),
  recommendedTier: z.string().max(50).optional(),
  transactionDetails: z.object({ linkupDepth: z.string().max(50).optional() }).optional(),
  scrapedUrls: z.array(z.string().max(2000)).max(25).optional(),
  /**
   * Ours: the caller ran the search or the scraping the web fields name (POST /api/web-search, POST /api/scrape) and
   * sent the results in the messages, as the engine does. The gateway then reports no "not-run" web notice.
   */
  webContextIncluded: z.boolean().optional(),
  /** The model settings the user set (src/protocol/sampling.ts): passed to the upstream when it takes them. */
  ...samplingShape,
});
export type StreamGptRequest = z.infer<typeof StreamGptRequestSchema>;

/**
 * Spec 000 section 9: the conversationUUID a request carries when no conversation exists yet (the balance probe
 * before a new conversation's first message, a file read for the new-conversation composer), verbatim.
 */
export const PLACEHOLDER_CONVERSATION_UUID = '{hash}';

export type Modality = 'text' | 'image' | 'video' | 'audio';

export interface ModelInfo {
  id: string;
  name: string;
  modality: Modality;
  /** Provider id, e.g. 'offline', 'openai', 'openrouter', 'ollama'. */
  provider: string;
  /** USD per million tokens, decimal strings. */
  pricing: { input: string; output: string };
  capabilities: string[];
  free: boolean;
  /** Built into Parley; runs with no key and no network. */
  offline: boolean;
  /**
   * Context length in tokens: from the provider configuration, else the upstream's GET /models context_length,
   * else the gateway's documented default (docs/gateway.md). The engine trims request history to fit it.
   */
  contextLength?: number;
  description?: string;
  /** Image and video models: USD per image or per video (decimal string); pricing per token is then '0'. */
  unitPrice?: { usd: string; unit: 'image' | 'video' };
  /** Image models: the per-model settings they take, shown as their controls (protocol/media.ts IMAGE_SETTING_NAMES). */
  imageSettings?: ImageSettingName[];
  /** Image models taking 'resolution': the sizes offered ('WxH'). */
  resolutions?: string[];
  /**
   * Text models: the model settings the gateway passes to this model's upstream (src/server/providers/sampling.ts);
   * the "Model settings" panel offers these (and Max tokens, which every model takes).
   */
  parameters?: SamplingName[];
}

export interface ModelsResponse {
  models: ModelInfo[];
  defaultModel: string;
}

/** Session fields of spec 001 section 3. Balances and amounts are decimal strings. */
export interface SessionData {
  id: string;
  sessionUUID: string;
  nanoDepositAddress: string | null;
  nanoReturnAddress: string | null;
  earned: string;
  usd_earned: string;
  usd_balance: string;
  nano_balance: string;
  metadata: Record<string, string>;
  /**
   * `pending` (ours): an auto-recharge top-up that waits for its payer: its amount (USD) and the checkout to pay it
   * at (the test provider's; nothing is credited until it is paid).
   */
  recharge_settings: { enabled: boolean; threshold: string; amount: string; pending?: { amount: string; paymentLink: string } };
  numReplies: number;
  activePolicies: string[];
  referrer: string | null;
  currency: 'USD' | 'XNO';
  displayCurrency: 'USD' | 'XNO';
}

export interface LocalSessionResponse {
  data: SessionData;
}

/**
 * 401 `error` of a browser signed out of its session (its recovery code was changed, or another browser signed
 * the others out): distinct from NO_SESSION (no cookie, or an expired session). docs/gateway.md "Sessions".
 */
export const SIGNED_OUT = 'SIGNED_OUT';
export const SIGNED_OUT_MESSAGE = 'This browser was signed out of its session: its recovery code was changed, or another browser signed the others out';

/** Spec 000 section 9: a generated title is at most 150 characters. */
export const TITLE_MAX_CHARS = 150;
/** Largest conversationContent the summary route accepts (the engine sends the opening of the conversation). */
export const SUMMARY_CONTENT_MAX_CHARS = 20_000;

/** POST /api/conversation-summary (spec 000 section 7): request conversationContent, answer summary. */
export const ConversationSummaryRequestSchema = z.object({
  conversationContent: z.string().trim().min(1).max(SUMMARY_CONTENT_MAX_CHARS),
});
export type ConversationSummaryRequest = z.infer<typeof ConversationSummaryRequestSchema>;
export interface ConversationSummaryResponse {
  /** The title, at most TITLE_MAX_CHARS characters. */
  summary: string;
}
