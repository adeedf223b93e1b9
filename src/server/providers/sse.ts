/**
 * Incremental Server-Sent Events parser (the WHATWG event-stream format) for upstream chat streams. Hand-written
 * because it sits on the relay's hot path: one pass over each network chunk, no regexes, and it copes with lines
 * and CRLF pairs split across chunks.
 */
export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  private buf = '';
  private data: string[] = [];
  private event = '';

  /** Feeds decoded text; returns the events completed by it. */
  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    const buf = this.buf.length > 0 ? this.buf + chunk : chunk;
    let start = 0;
    const n = buf.length;
    for (;;) {
      let i = start;
      while (i < n) {
        const c = buf.charCodeAt(i);
        if (c === 10 || c === 13) break;
        i++;
      }
      if (i >= n) break; // no complete line left
      const isCr = buf.charCodeAt(i) === 13;
      if (isCr && i + 1 >= n) break; // a CR at the very end: wait to see if LF follows
      this.line(buf.slice(start, i), out);
      start = isCr && buf.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
    }
    this.buf = start === 0 ? buf : buf.slice(start);
    return out;
  }

  /** End of input: a last unterminated line is processed and a pending event dispatched. */
  flush(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.buf.length > 0) {
      const rest = this.buf.endsWith('\r') ? this.buf.slice(0, -1) : this.buf;
      this.buf = '';
      this.line(rest, out);
    }
    this.line('', out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line.length === 0) {
      if (this.data.length > 0) out.push({ event: this.event || 'message', data: this.data.join('\n') });
      this.data = [];
      this.event = '';
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    // id and retry are irrelevant for a one-shot completion stream.
  }
}
