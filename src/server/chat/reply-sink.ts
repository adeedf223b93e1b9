/**
 * Where a streamed reply is written. Two implementations of one small interface:
 *
 *  - NodeReplySink writes straight to Node's ServerResponse when the app runs under @hono/node-server (the
 *    deployed path): one `res.write(text)` per delta, no WHATWG Response, Headers or stream objects in between.
 *    The route then returns RESPONSE_ALREADY_SENT. This keeps the relay's added time to first token well under
 *    a millisecond.
 *  - WebReplySink is a ReadableStream for any other host (app.request in tests, other runtimes): a write is one
 *    encode and one enqueue (lighter than hono's stream() helper, which chains a TransformStream and a second
 *    ReadableStream).
 *
 * Both apply backpressure: a write waits while a slow client has more than `highWaterMark` bytes queued. A client
 * that accepts nothing for `timeoutMs` (PARLEY_CLIENT_TIMEOUT_MS) is taken as gone: its connection is closed and the
 * reply goes on without it, as for any lost client (kept for a resume, charged for what the upstream produced), so a
 * client that stops reading can neither hold a reply (and its hold) open forever nor get it for free.
 */
import type { ServerResponse } from 'node:http';

export interface ReplySink {
  write(text: string): Promise<void>;
  end(): void;
}

const RESOLVED = Promise.resolve();

/** Default of PARLEY_CLIENT_TIMEOUT_MS. */
export const CLIENT_TIMEOUT_MS = 120_000;

export class NodeReplySink implements ReplySink {
  private ended = false;
  private wrote = false;

  constructor(
    private readonly res: ServerResponse,
    headers: Readonly<Record<string, string>>,
    private readonly timeoutMs = CLIENT_TIMEOUT_MS,
  ) {
    res.writeHead(200, headers as Record<string, string>);
    // The headers go out with the first delta when it is already here (one packet, one wake-up of the client);
    // otherwise right after this turn of the event loop, so the client learns at once that the reply started.
    setImmediate(() => {
      if (!this.wrote && !res.headersSent && !res.destroyed) res.flushHeaders();
    });
  }

  write(text: string): Promise<void> {
    const res = this.res;
    if (this.ended || text.length === 0 || res.destroyed || res.writableEnded) return RESOLVED;
    this.wrote = true;
    if (res.write(text, 'utf8')) return RESOLVED;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      // Nothing accepted for timeoutMs: the client is gone ('close' follows, and the reply detaches it).
      const timer = setTimeout(() => res.destroy(), this.timeoutMs);
      res.once('drain', done);
      res.once('close', done);
    });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.res.destroyed && !this.res.writableEnded) this.res.end();
  }
}

export class WebReplySink implements ReplySink {
  readonly readable: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private readonly encoder = new TextEncoder();
  private waiting: (() => void) | null = null;
  private done = false;
  private aborted = false;

  constructor(
    private readonly onCancel: () => void,
    highWaterMark = 64 * 1024,
    private readonly timeoutMs = CLIENT_TIMEOUT_MS,
  ) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wake(),
        cancel: () => this.abort(),
      },
      { highWaterMark, size: (chunk) => chunk.byteLength },
    );
  }

  private abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.wake();
    this.onCancel();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.();
  }

  write(text: string): Promise<void> {
    const c = this.controller;
    if (this.done || this.aborted || c === null || text.length === 0) return RESOLVED;
    c.enqueue(this.encoder.encode(text));
    if ((c.desiredSize ?? 1) > 0) return RESOLVED;
    return new Promise<void>((r) => {
      // Nothing read for timeoutMs: the client is gone.
      const timer = setTimeout(() => {
        c.error(new Error('The client stopped reading'));
        this.abort();
      }, this.timeoutMs);
      this.waiting = () => {
        clearTimeout(timer);
        r();
      };
    });
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    if (!this.aborted) this.controller?.close();
  }
}
