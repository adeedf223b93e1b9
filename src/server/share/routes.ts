/**
 * Share links (spec 001 section 2, issue 20; contract in src/protocol/share.ts, docs/protocol.md "Share links").
 * A session publishes one conversation's repro log (NDJSON); anyone with the link reads it; only the holder of the
 * owner token deletes it. The gateway keeps the log as data: it checks the size and the header line, never
 * renders it, and serves it with headers that keep a browser from treating it as a page (nosniff, a sandboxing
 * policy, attachment). The share page is the app's own (index.html): it fetches the log and renders it with the
 * app's message view, which shows model text as data (docs/architecture.md "Security").
 */
import type { Hono } from 'hono';
import { LOG_FORMAT } from '../../events/codec';
import { SHARE_ID_PATTERN, SHARE_MAX_BYTES, SHARE_MISSING_TEXT, SHARE_MAX_PER_SESSION, SHARE_OWNER_HEADER, sharePath, type ShareCreated } from '../../protocol/share';
import type { RateLimit } from '../env-vars';
import { createLimiter } from '../guards/rate-limit';
import { jsonError, readLimitedText, type AppEnv } from '../http';
import type { RouteContext } from '../context';
import { createShare, deleteShare, newOwnerToken, newShareId, readShare, shareExists } from './store';

export interface ShareSettings {
  /** Largest shared log, bytes. */
  maxBytes: number;
  /** Publishes per session (a token bucket, as the other limits). */
  rate: RateLimit;
  /** Shares one session keeps at once. */
  maxPerSession: number;
}

export const DEFAULT_SHARE_SETTINGS: ShareSettings = { maxBytes: SHARE_MAX_BYTES, rate: { burst: 10, perMinute: 2 }, maxPerSession: SHARE_MAX_PER_SESSION };

/** The header line may not be longer than this (it is about 100 bytes). */
const HEADER_LINE_MAX = 1024;

/** Null when `text` starts with an event log header line; else why not. Reads the first line only. */
export function checkLogHeader(text: string): string | null {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  if (end - start > HEADER_LINE_MAX) return 'The first line is not an event log header';
  let header: unknown;
  try {
    header = JSON.parse(text.slice(start, end));
  } catch {
    return 'The first line is not an event log header';
  }
  if (typeof header !== 'object' || header === null || (header as { format?: unknown }).format !== LOG_FORMAT) return 'The first line is not an event log header';
  return null;
}

/** What the GET of a shared log answers with: data only, never a page of this origin. */
const LOG_HEADERS = {
  'Content-Type': 'application/x-ndjson; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Content-Disposition': 'attachment; filename="parley-shared.ndjson"',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

const MISSING_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="dark light"><title>Not found · Parley</title><body style="font-family: system-ui, sans-serif; margin: 2rem;"><p>${SHARE_MISSING_TEXT}</p><p><a href="/">Open Parley</a></p></body></html>`;
const MISSING_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'Referrer-Policy': 'no-referrer',
};

export function registerShareRoutes(app: Hono<AppEnv>, ctx: RouteContext, settings: ShareSettings = DEFAULT_SHARE_SETTINGS): { close(): Promise<void> } {
  // Per session (the /api/* middleware set it): publishing is what costs storage.
  const limiter = createLimiter(ctx.db, 'share', settings.rate, (c) => (c.get('sessionId') as string | undefined) ?? null, 'shared links', ctx.log);

  app.post('/api/share', async (c) => {
    const refused = await limiter.check(c);
    if (refused) return refused;
    let text: string | null;
    try {
      text = await readLimitedText(c, settings.maxBytes);
    } catch {
      return jsonError(c, 400, 'BAD_REQUEST', 'Could not read the request body');
    }
    if (text === null) return jsonError(c, 413, 'PAYLOAD_TOO_LARGE', `This conversation is too large to share as a link (more than ${settings.maxBytes} bytes). Download the file instead.`);
    const bad = checkLogHeader(text);
    if (bad) return jsonError(c, 400, 'BAD_REQUEST', bad);
    const id = newShareId();
    const ownerToken = newOwnerToken();
    const bytes = Buffer.byteLength(text);
    const made = await createShare(ctx.db, { id, sessionId: c.get('sessionId'), ownerToken, body: text, bytes, maxPerSession: settings.maxPerSession });
    if (!made.ok) return jsonError(c, 429, 'TOO_MANY_SHARES', `You have ${settings.maxPerSession} published links; delete one to publish another.`);
    const body: ShareCreated = { id, url: sharePath(id), ownerToken };
    c.header('Cache-Control', 'no-store');
    return c.json(body, 201);
  });

  app.delete('/api/share/:id', async (c) => {
    const id = c.req.param('id');
    const token = c.req.header(SHARE_OWNER_HEADER) ?? '';
    if (!SHARE_ID_PATTERN.test(id)) return jsonError(c, 404, 'NOT_FOUND', 'No such shared link');
    if (token === '') return jsonError(c, 403, 'FORBIDDEN', 'Only the owner of this link can delete it');
    const outcome = await deleteShare(ctx.db, id, token);
    if (outcome === 'missing') return jsonError(c, 404, 'NOT_FOUND', 'No such shared link');
    if (outcome === 'forbidden') return jsonError(c, 403, 'FORBIDDEN', 'Only the owner of this link can delete it');
    c.header('Cache-Control', 'no-store');
    return c.json({ success: true });
  });

  app.get('/share/:id/log', async (c) => {
    const id = c.req.param('id');
    const body = SHARE_ID_PATTERN.test(id) ? await readShare(ctx.db, id) : null;
    if (body === null) return jsonError(c, 404, 'NOT_FOUND', 'No such shared link');
    return new Response(c.req.method === 'HEAD' ? null : body, { status: 200, headers: LOG_HEADERS });
  });

  // The page: the app (served further down) while the share exists. Else a 404 page of its own, never cached and
  // with no script: the app's index.html would be revalidated (304) to the copy the browser kept from before.
  app.get('/share/:id', async (c, next) => {
    const id = c.req.param('id');
    if (SHARE_ID_PATTERN.test(id) && (await shareExists(ctx.db, id))) return next();
    return new Response(c.req.method === 'HEAD' ? null : MISSING_PAGE, { status: 404, headers: MISSING_HEADERS });
  });

  return { close: () => limiter.close() };
}
