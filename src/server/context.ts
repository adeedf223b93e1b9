import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody } from '../protocol/api';
import type { GuardConfig } from './config';
import type { Db } from './db/types';
import type { Ledger } from './money/ledger';
import type { Catalogue } from './chat/catalogue';
import type { ReplyRegistry } from './chat/reply-registry';
import type { Limiter } from './guards/rate-limit';
import type { RequestBinder } from './body/request-binding';
import type { BodyParsePool } from './body/parse-pool';
import type { ClientAddressFn } from './guards/client-address';
import type { ParsePool } from './parse/pool';
import type { UploadBudget } from './guards/upload-budget';

/**
 * Hono environment of the gateway app: the authenticated session id is set by the /api auth middleware. Under
 * @hono/node-server the Node request and response are bindings; with `app.request(...)` (tests) they are absent.
 */
export interface AppEnv {
  Variables: { sessionId: string };
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse };
}

export interface AppSettings {
  /** Upstream silence that counts as a stall, ms (PARLEY_STALL_MS). */
  stallMs: number;
  /** Set the Secure flag on the session cookie (PARLEY_COOKIE_SECURE; needs https). */
  cookieSecure: boolean;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** How long a reply whose client went away keeps relaying, waiting for a resume, ms (PARLEY_RESUME_GRACE_MS). */
  resumeGraceMs: number;
  /** Model that writes conversation titles (PARLEY_TITLE_MODEL); unset = the offline deterministic title. */
  titleModel?: string | null;
  /** Vision model that describes images (PARLEY_VISION_MODEL); unset = the offline engine's description. */
  visionModel?: string | null;
  /** Client address, rate limits, cross-site and admin checks (guards/, docs/gateway.md "Security and limits"). */
  guards: GuardConfig;
  /** A client that accepts no byte of its reply for this long is taken as gone, ms (PARLEY_CLIENT_TIMEOUT_MS). */
  clientTimeoutMs?: number;
}

/** What every route module gets. */
export interface RouteContext {
  db: Db;
  ledger: Ledger;
  catalogue: Catalogue;
  settings: AppSettings;
  /** Streamed replies in flight and recently finished, for resume, Stop and retries (chat/reply-registry.ts). */
  replies: ReplyRegistry;
  /**
   * Per-address limit for costly requests (model replies, paid tools). app.ts applies it to the routes it knows;
   * a new costly route calls `await ctx.costlyLimit.check(c)` (a 429 Response, or null to go on) or mounts
   * `ctx.costlyLimit.middleware` (guards/rate-limit.ts).
   */
  costlyLimit: Limiter;
  /** requestId bindings (body/request-binding.ts). */
  bindings: RequestBinder;
  /** Parses large reply bodies off the event loop (body/parse-pool.ts); read them with body/read-body.ts. */
  bodies: BodyParsePool;
  /** The request's client address (guards/client-address.ts): what per-address limits and quotas count by. */
  clientAddress: ClientAddressFn;
  /** Reads untrusted content (pages, documents, images) in worker threads within budgets (parse/pool.ts). */
  parse: ParsePool;
  /** Upload bytes held in memory, capped per session and overall (guards/upload-budget.ts). */
  uploads: UploadBudget;
  log: (line: string) => void;
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
