/**
 * Wire framing of the streamed chat reply (POST /api/stream-gpt). See docs/protocol.md.
 *
 * The body is UTF-8 text. Plain text is reply text. Three in-band markers:
 *  - `<think>` ... `</think>` wraps reasoning ("thinking") text; it may open and close many times.
 *  - `CLEAR_THINKING_MESSAGE` discards all thinking text received so far.
 *  - `<metadata>{json}</metadata>` closes the stream with the reply's metadata (cost, errors, tokens).
 * Any of the markers may be split across network chunks; the parser must cope.
 */
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';
export const CLEAR_THINKING_MESSAGE = 'CLEAR_THINKING_MESSAGE';
export const METADATA_OPEN = '<metadata>';
export const METADATA_CLOSE = '</metadata>';

export type PaymentSource = 'USD' | 'nano';

/** The metadata tag's JSON object. All fields optional on the wire; the parser validates types. */
export interface StreamMetadata {
  /** USD charged for this reply (decimal number). */
  cost?: number;
  paymentSource?: PaymentSource;
  inputTokens?: number;
  outputTokens?: number;
  /** True when the stream ended early but the text sent so far is a usable partial reply. */
  isPartial?: boolean;
  /** Error text when the reply failed mid-stream. */
  error?: string;
  /** The upstream stopped sending for longer than the stall limit. Not charged. */
  isStreamStall?: boolean;
  /** Charging failed on the server. Not charged. */
  billingError?: boolean;
  /** The upstream model that answered. */
  model?: string;
  /**
   * Set when the request asked for web context (a ':online' model suffix, transactionDetails.linkupDepth or
   * scrapedUrls): this endpoint searches and scrapes nothing itself, and says so (docs/decisions.md).
   */
  webNotice?: string;
}

/** Encode a metadata tag (gateway side). */
export function encodeMetadata(meta: StreamMetadata): string {
  return `${METADATA_OPEN}${JSON.stringify(meta)}${METADATA_CLOSE}`;
}
