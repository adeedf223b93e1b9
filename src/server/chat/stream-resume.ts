/**
 * Joining a reply that already exists, by its key: POST /api/stream-gpt/resume (the engine that took over from a
 * closed leader tab), POST /api/stream-gpt/cancel (Stop), and `attachReply` for the chat route, whose true
 * retries of a requestId get the first request's reply instead of a second upstream generation.
 *
 * Also the two small pieces every streamed answer shares: the reply's response (straight to Node's socket or a
 * web stream, ./reply-sink.ts) and the watch on its client going away.
 */
import type { Context, Hono } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { z } from 'zod';
import { RequestIdSchema } from '../../protocol/request-id';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import type { ReplyRegistry } from './reply-registry';
import { NodeReplySink, WebReplySink, type ReplySink } from './reply-sink';

/** The key of a chat reply: the charge key too (one reply, one charge). */
export function replyKey(sessionId: string, requestId: string): string {
  return `chat:${sessionId}:${requestId}`;
}

export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/plain; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Accel-Buffering': 'no',
};

/**
 * Calls `onGone` when the client of this request goes away. Under @hono/node-server it watches the Node response
 * (cheap); elsewhere (app.request in tests) the request's signal: reading c.req.raw.signal under node-server would
 * build a full WHATWG Request for nothing. Returns the function that stops watching.
 */
export function watchClientGone(c: Context<AppEnv>, onGone: () => void): () => void {
  const outgoing = c.env?.outgoing;
  if (outgoing && typeof outgoing.once === 'function') {
    const onClose = (): void => {
      if (!outgoing.writableFinished) onGone();
    };
    outgoing.once('close', onClose);
    return () => outgoing.off('close', onClose);
  }
  const signal = c.req.raw.signal;
  signal.addEventListener('abort', onGone, { once: true });
  return () => signal.removeEventListener('abort', onGone);
}

/**
 * The streamed response of this request: straight to Node's response when there is one, else a web stream. A
 * client that accepts nothing for `timeoutMs` is taken as gone (./reply-sink.ts).
 */
export function openSink(
  c: Context<AppEnv>,
  onCancel: () => void,
  timeoutMs?: number,
  headers: Readonly<Record<string, string>> = STREAM_HEADERS,
): { sink: ReplySink; response: Response } {
  const outgoing = c.env?.outgoing;
  if (outgoing && typeof outgoing.writeHead === 'function') {
    return { sink: new NodeReplySink(outgoing, headers, timeoutMs), response: RESPONSE_ALREADY_SENT };
  }
  const web = new WebReplySink(onCancel, undefined, timeoutMs);
  return { sink: web, response: c.body(web.readable, 200, { ...headers }) };
}

/**
 * This request's client joins the reply under `key`: everything written so far, then the rest live, ending with
 * the metadata tag. Resolves to null when there is no such reply (never started, or no longer kept). A reply this
 * process runs is joined in memory; one that another gateway process runs is followed through the shared store.
 */
export async function attachReply(c: Context<AppEnv>, replies: ReplyRegistry, key: string, timeoutMs?: number): Promise<Response | null> {
  const live = replies.get(key);
  if (!live) {
    const store = replies.sharedStore;
    if (store === null || !(await store.exists(key))) return null;
    let gone = false;
    const opened = openSink(c, () => (gone = true), timeoutMs);
    const stopWatching = watchClientGone(c, () => (gone = true));
    void store.follow(key, opened.sink, () => gone).finally(stopWatching);
    return opened.response;
  }
  let sink: ReplySink | null = null;
  const opened = openSink(c, () => sink && live.detach(sink), timeoutMs);
  sink = opened.sink;
  const stopWatching = watchClientGone(c, () => sink && live.detach(sink));
  void live.attach(sink).finally(() => {
    if (live.done) stopWatching();
  });
  return opened.response;
}

const ReplyRefSchema = z.object({ requestId: RequestIdSchema });

/** The reply key a resume or cancel body names (or the 400/413 answer for a bad body). */
async function namedKey(c: Context<AppEnv>): Promise<{ ok: true; key: string } | { ok: false; response: Response }> {
  const body = await readJson(c, 4096);
  if (!body.ok) return body;
  const parsed = ReplyRefSchema.safeParse(body.value);
  if (!parsed.success) return { ok: false, response: jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`) };
  return { ok: true, key: replyKey(c.get('sessionId'), parsed.data.requestId) };
}

export function registerReplyRoutes(app: Hono<AppEnv>, ctx: RouteContext, replies: ReplyRegistry): void {
  // A reply whose connection was lost (the engine's tab closed): everything so far, then the rest live.
  app.post('/api/stream-gpt/resume', async (c) => {
    const named = await namedKey(c);
    if (!named.ok) return named.response;
    const attached = await attachReply(c, replies, named.key, ctx.settings.clientTimeoutMs);
    return attached ?? jsonError(c, 404, 'REPLY_NOT_FOUND', 'No reply in progress or recently finished with that requestId');
  });

  // The user pressed Stop: end the upstream now rather than after the resume grace period.
  app.post('/api/stream-gpt/cancel', async (c) => {
    const named = await namedKey(c);
    if (!named.ok) return named.response;
    const live = replies.get(named.key);
    if (live) {
      live.abandon();
      return c.json({ ok: true, found: true });
    }
    // Another gateway process may run it: flag it there (its owner looks for Stop requests twice a second).
    const store = replies.sharedStore;
    const found = store !== null && (await store.requestCancel(named.key));
    return c.json({ ok: true, found });
  });
}
