/**
 * Replies stop at what was held (issue 15, item 7). A paid reply holds its output budget (money/reply-hold.ts) and tells
 * the upstream that budget as max_tokens; an upstream that ignores max_tokens used to have everything past it
 * relayed unpaid (maxTokens 1 got 20,000 tokens for $0.00004). The relay now counts the output as it streams and
 * stops at the budget: what would pass it is not relayed, the upstream request is aborted, and the reply is charged
 * at most the hold and marked cut.
 *
 * The count is the house estimate (characters / 4, src/shared/tokens.ts, providers/offline.ts) made
 * conservative, per chunk and cheap (one pass over the chunk's character codes):
 *
 *  - a character outside ASCII counts half a token (scripts such as CJK take about a token a character; a real
 *    tokenizer never makes much more of a character than that), an ASCII one a quarter, as the house estimate;
 *  - every chunk counts at least one token (OpenAI-compatible upstreams send about one token a chunk, so "a a a a"
 *    cannot pass at a quarter token a character);
 *  - an image line (image-capable chat models, spec 000 section 7) counts what the provider says it stands for
 *    (IMAGE_OUTPUT_TOKENS) and is relayed whole or not at all, as is every line of that format.
 *
 * The estimate is max(chunks, weighted characters / 4). It never passes an honest upstream's own count by much, so
 * a reply whose upstream honours max_tokens ends as before; the cut only bites past the budget.
 */

/** Output tokens one generated image costs at an image-capable chat model (Gemini's image models bill 1,290). */
export const IMAGE_OUTPUT_TOKENS = 1290;

/** The note of a reply the gateway cut at its held output budget (metadata `error`, with `isPartial`). */
export function replyLimitMessage(maxTokens: number): string {
  return `The reply was stopped at its length limit of ${maxTokens} token${maxTokens === 1 ? '' : 's'}: the model went on past the maximum it was asked for, and only what was paid for is shown.`;
}

/** Quarter tokens of a text: 1 per ASCII character, 2 per other UTF-16 unit. */
function quarters(text: string): number {
  let q = 0;
  for (let i = 0; i < text.length; i++) q += text.charCodeAt(i) < 0x80 ? 1 : 2;
  return q;
}

/** The conservative token estimate of one whole text taken as one chunk (titles, descriptions). */
export function estimateOutputTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(quarters(text) / 4));
}

export class OutputBudget {
  private chunks = 0;
  private q = 0;
  /** Something was refused or shortened: the reply is cut. */
  exhausted = false;

  constructor(readonly maxTokens: number) {}

  /** The estimate of what was let through so far, in tokens (never above maxTokens). */
  get used(): number {
    return Math.max(this.chunks, Math.ceil(this.q / 4));
  }

  /**
   * What of this chunk may be relayed: all of it, a prefix (the rest would pass the budget), or ''. `wholeTokens`:
   * the chunk is one indivisible line standing for that many tokens (relayed whole or not at all).
   */
  take(text: string, wholeTokens?: number): string {
    if (this.exhausted) return '';
    if (text.length === 0) return text;
    const cap = this.maxTokens * 4;
    if (this.chunks + 1 > this.maxTokens) return this.refuse('');
    if (wholeTokens !== undefined) {
      const need = wholeTokens * 4;
      if (this.q + need > cap) return this.refuse('');
      this.chunks++;
      this.q += need;
      return text;
    }
    let q = this.q;
    let i = 0;
    for (; i < text.length; i++) {
      const w = text.charCodeAt(i) < 0x80 ? 1 : 2;
      if (q + w > cap) break;
      q += w;
    }
    this.chunks++;
    this.q = q;
    if (i === text.length) return text;
    // Never end on the first half of a surrogate pair (an emoji would be broken in two).
    const code = text.charCodeAt(i - 1);
    if (i > 0 && code >= 0xd800 && code <= 0xdbff) {
      i--;
      this.q -= 2;
    }
    return this.refuse(text.slice(0, i));
  }

  private refuse(part: string): string {
    this.exhausted = true;
    return part;
  }
}
