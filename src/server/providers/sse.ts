/**
 * Server-Sent Events parsing (the WHATWG event-stream format) for upstream chat streams, on eventsource-parser:
 * it keeps the unfinished line as fragments and joins them only when a line ends, so the work is linear in the
 * bytes received however they are split (the hand-written parser it replaces rescanned its whole buffer on every
 * chunk: a 5 MB data line in 16 KB chunks held the event loop for seconds). This wrapper adds what the relay needs
 * on top: a byte-order mark at the start of the stream is dropped (the decoder upstream of us keeps it), a last
 * event without its blank line is still delivered at the end, and one event larger than `maxEventChars` ends the
 * stream with an error instead of growing without bound.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface SseEvent {
  event: string;
  data: string;
}

/** Largest event the relay buffers, in characters (64 Mi): far above any chat chunk, bounded all the same. */
export const MAX_SSE_EVENT_CHARS = 64 * 1024 * 1024;

export class SseTooLargeError extends Error {
  constructor(readonly maxChars: number) {
    super(`The model sent an event larger than ${maxChars} characters`);
    this.name = 'SseTooLargeError';
  }
}

export class SseParser {
  private readonly parser: EventSourceParser;
  private out: SseEvent[] = [];
  private started = false;
  private failure: SseTooLargeError | null = null;

  constructor(private readonly maxEventChars: number = MAX_SSE_EVENT_CHARS) {
    this.parser = createParser({
      maxBufferSize: maxEventChars,
      onEvent: (e) => this.out.push({ event: e.event ?? 'message', data: e.data }),
      onError: (e) => {
        if (e.type === 'max-buffer-size-exceeded') this.failure = new SseTooLargeError(this.maxEventChars);
        // invalid-retry and unknown-field are ignored, as browsers do.
      },
    });
  }

  /** Feeds decoded text; returns the events completed by it. Throws SseTooLargeError past the event cap. */
  push(chunk: string): SseEvent[] {
    if (this.failure) throw this.failure;
    let text = chunk;
    if (!this.started) {
      if (text.length === 0) return [];
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.parser.feed(text);
    return this.drain();
  }

  /** End of input: a last unterminated line is processed and a pending event dispatched. */
  flush(): SseEvent[] {
    if (this.failure) throw this.failure;
    // Two line ends: the first ends a pending line (after a lone CR it pairs as CRLF), the second dispatches.
    this.parser.feed('\n\n');
    return this.drain();
  }

  private drain(): SseEvent[] {
    if (this.failure) throw this.failure;
    const out = this.out;
    this.out = [];
    return out;
  }
}
