/**
 * The text-provider interface of the gateway. A provider turns a chat request into a stream of events; the
 * stream-gpt route (src/server/chat/stream-gpt.ts) frames them for the wire (src/protocol/stream.ts).
 */
import type { ChatPayload } from '../body/chat-payload';
import type { Sampling } from '../../protocol/sampling';

export interface ProviderChatRequest {
  /** The provider's own model id. */
  model: string;
  /** The conversation: its messages as JSON, the input-token estimate, what the offline engine reads. */
  conversation: ChatPayload;
  maxTokens?: number;
  /** The model settings to send, already cut to what the model takes (./sampling.ts passSampling). */
  sampling?: Sampling;
}

export type ProviderEvent =
  /**
   * A content delta. `wholeTokens`: the delta is one whole line of the image-lines format (an image or a text line,
   * spec 000 section 7) standing for that many output tokens: relayed whole or not at all (providers/output-budget.ts).
   */
  | { type: 'content'; text: string; wholeTokens?: number }
  | { type: 'reasoning'; text: string }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  /** The model id the upstream reports it answered with. */
  | { type: 'model'; model: string }
  /**
   * The model asked to call a tool (its name, possibly empty). Parley offers none: the provider turns these into a
   * plain note at the end of the reply (providers/openai.ts); relays never see this event.
   */
  | { type: 'toolCall'; name: string }
  /** Bytes arrived that carried nothing to show (role chunk, keep-alive comment): the upstream is alive. */
  | { type: 'ping' };

/**
 * Optional on a provider's event stream: how many events can be read now without waiting (those of network chunks
 * already parsed). A relay writes the text of all of them as one write (chat/stream-gpt.ts).
 */
export interface BufferedEvents {
  buffered(): number;
}

/** How many events `events` can give now without waiting: its own count, or 0 when it has none (write each). */
export function bufferedCount(events: object): () => number {
  const b = events as Partial<BufferedEvents>;
  return typeof b.buffered === 'function' ? () => (b as BufferedEvents).buffered() : () => 0;
}

export type OpenStreamResult =
  | { ok: true; events: AsyncIterable<ProviderEvent> }
  /** The upstream refused before streaming: HTTP status and its error, already normalised. */
  | { ok: false; status: number; error: string; message: string };

export interface TextProvider {
  /** Provider id, the ModelInfo.provider label. */
  readonly id: string;
  /**
   * Starts a streamed completion. Resolves once the upstream has answered with headers (or refused). Aborting
   * `signal` must cancel the upstream request promptly; the iterator then throws.
   */
  open(req: ProviderChatRequest, signal: AbortSignal): Promise<OpenStreamResult>;
}

/** The upstream failed after streaming began (connection lost, error event in the stream). */
export class UpstreamStreamError extends Error {
  override name = 'UpstreamStreamError';
}
