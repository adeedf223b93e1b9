/**
 * A minimal streaming HTTP client on node:http/https with a keep-alive agent, for the relay's hot path.
 * Hand-written instead of fetch: Node's fetch (undici) wraps every request and response in WHATWG objects and
 * streams, which costs a few tenths of a millisecond per request; node:http hands us the socket's chunks as they
 * arrive. Abort with the signal: the request (and its socket) is destroyed at once.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface StreamingResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrives; iterate it or read it with readText. */
  body: IncomingMessage;
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

  constructor(base: URL) {
    this.secure = base.protocol === 'https:';
    // As many idle sockets kept as may be open: under load a socket freed by one reply is taken by the next, and a
    // smaller idle pool would close it only to connect again (a connect and a close per reply).
    const opts = { keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const };
    this.agent = this.secure ? new HttpsAgent(opts) : new HttpAgent(opts);
  }

  /**
   * POST `body` (a string, or pieces written in turn: a large body's bytes are never joined); resolves once the
   * response headers are in. Rejects on network errors or abort.
   */
  post(url: URL, headers: Record<string, string>, body: string | readonly (string | Uint8Array)[], signal: AbortSignal): Promise<StreamingResponse> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        return;
      }
      const req = (this.secure ? httpsRequest : httpRequest)(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...headers, 'content-length': String(byteLength(body)) },
        },
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res });
        },
      );
      const onAbort = (): void => {
        req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      req.once('error', (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
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
