/**
 * A minimal streaming HTTP client on node:http/https with a keep-alive agent, for the relay's hot path.
 * Hand-written instead of fetch: Node's fetch (undici) wraps every request and response in WHATWG objects and
 * streams, which costs a few tenths of a millisecond per request; node:http hands us the socket's chunks as they
 * arrive. Abort with the signal: the request (and its socket) is destroyed at once.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface StreamingResponse {
  status: number;
  /** The body as it arrives; iterate it or read it with readText. Its headers are `body.headers` (built when read). */
  body: IncomingMessage;
}

/** Where a request goes, as node:http options. */
interface Target {
  protocol: string;
  hostname: string;
  port: string;
  path: string;
  auth?: string;
}

/** Idle kept-alive sockets are closed after this long (below the 5 s keep-alive timeout servers commonly use). */
const IDLE_SOCKET_MS = 4_000;

/** A kept-alive socket the server had closed: the request never reached it. */
class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

function byteLength(body: string | readonly (string | Uint8Array)[]): number {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  let n = 0;
  for (const piece of body) n += typeof piece === 'string' ? Buffer.byteLength(piece, 'utf8') : piece.byteLength;
  return n;
}

export class HttpClient {
  private readonly agent: HttpAgent;
  private readonly secure: boolean;
  private readonly targets = new Map<string, Target>();

  constructor(base: URL) {
    this.secure = base.protocol === 'https:';
    // As many idle sockets kept as may be open: under load a socket freed by one reply is taken by the next, and a
    // smaller idle pool would close it only to connect again (a connect and a close per reply). An idle socket is
    // closed after IDLE_SOCKET_MS, before a server's own keep-alive timeout (commonly 5 s) closes it under us.
    const opts = { keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const, timeout: IDLE_SOCKET_MS };
    this.agent = this.secure ? new HttpsAgent(opts) : new HttpAgent(opts);
  }

  /**
   * POST `body` (a string, or pieces written in turn: a large body's bytes are never joined); resolves once the
   * response headers are in. Rejects on network errors or abort. A request on a kept-alive socket that the server
   * closed as it was reused (reset before any answer) is sent once more on a new socket: the server never read it.
   */
  async post(url: URL, headers: Record<string, string>, body: string | readonly (string | Uint8Array)[], signal: AbortSignal): Promise<StreamingResponse> {
    try {
      return await this.send(url, headers, body, signal);
    } catch (e) {
      if (!(e instanceof StaleSocketError) || signal.aborted) throw e instanceof StaleSocketError ? e.cause : e;
      return this.send(url, headers, body, signal);
    }
  }

  private send(url: URL, headers: Record<string, string>, body: string | readonly (string | Uint8Array)[], signal: AbortSignal): Promise<StreamingResponse> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        return;
      }
      const req = (this.secure ? httpsRequest : httpRequest)(
        { ...this.target(url), method: 'POST', agent: this.agent, headers: { ...headers, 'content-length': String(byteLength(body)) } },
        (res) => {
          signal.removeEventListener('abort', onAbort);
          // From here the body stream carries any abort as an error.
          const onBodyAbort = (): void => {
            res.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          };
          if (signal.aborted) onBodyAbort();
          else {
            signal.addEventListener('abort', onBodyAbort, { once: true });
            res.once('close', () => signal.removeEventListener('abort', onBodyAbort));
          }
          resolve({ status: res.statusCode ?? 0, body: res });
        },
      );
      const onAbort = (): void => {
        req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      req.once('error', (e: NodeJS.ErrnoException) => {
        signal.removeEventListener('abort', onAbort);
        const stale = req.reusedSocket && !signal.aborted && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
        reject(stale ? new StaleSocketError(e) : e);
      });
      req.setNoDelay(true);
      if (typeof body === 'string') {
        // A string body goes out with the headers in one write (a Buffer would be a second chunk and a copy).
        req.end(body, 'utf8');
      } else {
        for (const piece of body) req.write(piece);
        req.end();
      }
    });
  }

  /** A URL as request options, worked out once per URL (Node would convert the URL object on every request). */
  private target(url: URL): Target {
    let t = this.targets.get(url.href);
    if (!t) {
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      t = { protocol: url.protocol, hostname, port: url.port, path: `${url.pathname}${url.search}` };
      if (url.username || url.password) t.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      this.targets.set(url.href, t);
    }
    return t;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Reads a (small) body as text, at most `limit` characters; the rest is discarded. */
export async function readText(body: IncomingMessage, limit: number): Promise<string> {
  body.setEncoding('utf8');
  let text = '';
  try {
    for await (const chunk of body) {
      text += chunk as string;
      if (text.length >= limit) {
        body.destroy();
        break;
      }
    }
  } catch {
    // a truncated error body is still worth showing
  }
  return text.slice(0, limit);
}
