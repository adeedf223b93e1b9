/**
 * Wire framing of the streamed chat reply (POST /api/stream-gpt). See docs/protocol.md.
 *
 * The body is UTF-8 text. Plain text is reply text. Three in-band markers:
 *  - `<think>` ... `</think>` wraps reasoning ("thinking") text; it may open and close many times.
 *  - `CLEAR_THINKING_MESSAGE` discards all thinking text received so far.
 *  - `<metadata>{json}</metadata>` closes the stream with the reply's metadata (cost, errors, tokens).
 * Any of the markers may be split across network chunks; the parser must cope.
 *
 * Escaping: model text (reply or reasoning) may itself contain a marker (a model explaining `<think>` tags, reasoning
 * that quotes `</think>`). The gateway writes such text with FRAME_BREAK (`<!>`) inside each marker it contains, right
 * after the marker's first character (`<<!>/think>`, `C<!>LEAR_THINKING_MESSAGE`), and before a literal `<!>` too;
 * the parser drops every FRAME_BREAK outside the metadata. See FrameEscaper.
 */
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';
export const CLEAR_THINKING_MESSAGE = 'CLEAR_THINKING_MESSAGE';
export const METADATA_OPEN = '<metadata>';
export const METADATA_CLOSE = '</metadata>';
/** Dropped by the parser: breaks a marker that model text contains, so it reads as text (see FrameEscaper). */
export const FRAME_BREAK = '<!>';

/** The markers model text must not contain whole, as the parser would act on them. */
const ESCAPED = [THINK_OPEN, THINK_CLOSE, METADATA_OPEN, FRAME_BREAK, CLEAR_THINKING_MESSAGE] as const;

/** Length of the longest suffix of `s` that is a proper prefix of a marker (0 when none). */
function heldSuffix(s: string): number {
  const n = s.length;
  for (let len = Math.min(n, CLEAR_THINKING_MESSAGE.length - 1); len > 0; len--) {
    const c = s.charCodeAt(n - len);
    if (c !== 0x3c /* < */ && c !== 0x43 /* C */) continue;
    const tail = s.slice(n - len);
    for (const m of ESCAPED) if (m.length > len && m.startsWith(tail)) return len;
  }
  return 0;
}

/** `s` with FRAME_BREAK inserted after the first character of each marker it contains. */
export function escapeFrame(s: string): string {
  if (s.indexOf('<') === -1 && s.indexOf('CLEAR_THINKING_MESSAGE') === -1) return s;
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x3c && c !== 0x43) continue;
    for (const m of ESCAPED) {
      if (s.startsWith(m, i)) {
        out += s.slice(from, i + 1) + FRAME_BREAK;
        from = i + 1;
        break;
      }
    }
  }
  return out + s.slice(from);
}

/**
 * Gateway side of the escaping, for one stream of deltas: a marker may come split across two deltas, so a delta's
 * tail that could start one is held back and escaped with what follows. `take(delta)` returns the text to write now;
 * `flush()` returns the held tail (before a change between reply text and thinking, and at the end): a tail followed
 * by a marker the gateway writes itself, or by nothing, cannot complete a marker.
 */
export class FrameEscaper {
  private held = '';

  take(delta: string): string {
    const s = this.held.length > 0 ? this.held + delta : delta;
    const keep = heldSuffix(s);
    this.held = keep > 0 ? s.slice(s.length - keep) : '';
    return escapeFrame(keep > 0 ? s.slice(0, s.length - keep) : s);
  }

  flush(): string {
    const h = this.held;
    this.held = '';
    return h;
  }
}

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
