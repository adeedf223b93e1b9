/**
 * HTTP plumbing every route shares: the Hono environment, the JSON error answer (protocol.md) and reading a JSON body
 * within a size limit. Infrastructure: it imports no domain.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody } from '../protocol/api';

/**
 * Hono environment of the gateway app: the authenticated session id is set by the /api auth middleware. Under
 * @hono/node-server the Node request and response are bindings; with `app.request(...)` (tests) they are absent.
 */
export interface AppEnv {
  Variables: { sessionId: string };
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse };
}

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  error: string,
  message: string,
  extra: Partial<Pick<ErrorBody, 'requiredBalance' | 'requiredUsd'>> = {},
): Response {
  const body: ErrorBody = { error, message, ...extra };
  c.header('Cache-Control', 'no-store');
  return c.json(body, status);
}

/** The body as text, or null when it is (or declares itself) larger than `maxBytes`; never reads past the limit. */
export async function readLimitedText(c: Context, maxBytes: number): Promise<string | null> {
  const declared = c.req.header('content-length');
  if (declared !== undefined) {
    // The HTTP parser holds the body to its Content-Length, so checking the header is enough; the body is then
    // read on @hono/node-server's fast path (straight from the socket).
    const n = Number(declared);
    if (!Number.isInteger(n) || n < 0 || n > maxBytes) return null;
    return c.req.text();
  }
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** Reads a JSON body of at most `maxBytes`; on a too-large or malformed body returns the 413/400 answer instead. */
export async function readJson(c: Context, maxBytes: number): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  let text: string | null;
  try {
    text = await readLimitedText(c, maxBytes);
  } catch {
    return { ok: false, response: jsonError(c, 400, 'BAD_REQUEST', 'Could not read the request body') };
  }
  if (text === null) return { ok: false, response: jsonError(c, 413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`) };
  if (text.trim().length === 0) return { ok: false, response: jsonError(c, 400, 'BAD_REQUEST', 'The request body is empty; expected JSON') };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return {
      ok: false,
      response: jsonError(c, 400, 'BAD_REQUEST', `The request body is not valid JSON: ${e instanceof Error ? e.message : 'parse error'}`),
    };
  }
}

export { describeIssues } from './body/chat-digest';
