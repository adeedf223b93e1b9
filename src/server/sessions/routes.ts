/**
 * GET /auth/local-session (spec 001 section 7) and the session check of every /api call.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SIGNED_OUT, SIGNED_OUT_MESSAGE, type LocalSessionResponse } from '../../protocol/api';
import { type RouteContext } from '../context';
import { jsonError, type AppEnv } from '../http';
import type { Limiter } from '../guards/rate-limit';
import { sessionCache } from './cache';
import { createSession, findSessionByToken, lookupToken, SESSION_COOKIE, TOKEN_SIGNED_OUT, toSessionData, touchSession } from './store';

const COOKIE_MAX_AGE_S = 400 * 24 * 3600; // the most browsers keep a cookie

export interface SessionRouteOptions {
  /** Limits session creation per client address (guards/rate-limit.ts). */
  creationLimiter: Limiter;
}

export function registerSessionRoutes(app: Hono<AppEnv>, ctx: RouteContext, opts: SessionRouteOptions): MiddlewareHandler<AppEnv> {
  const cache = sessionCache(ctx.db);
  const touchMs = ctx.settings.guards.sessionTouchMs;

  app.get('/auth/local-session', async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    // The session reads its own replies: the $0 entries of its free replies still queued are written first (a
    // session with replies in flight here is in the token cache).
    const known = token ? cache.get(token) : undefined;
    if (known) await ctx.ledger.freeReplies.flushFor(known.id);
    const generation = cache.generation;
    const found = token ? await findSessionByToken(ctx.db, token) : null;
    if (found === TOKEN_SIGNED_OUT) {
      // Said once: the cookie goes too, so the browser's next call starts a new session (the engine says why).
      if (token) cache.delete(token);
      deleteCookie(c, SESSION_COOKIE, { path: '/', secure: ctx.settings.cookieSecure });
      return jsonError(c, 401, SIGNED_OUT, SIGNED_OUT_MESSAGE);
    }
    let session = found;
    if (!session) {
      // Only creating a session costs a token: a client that keeps its cookie is never limited here.
      const refused = await opts.creationLimiter.check(c);
      if (refused) return refused;
      const created = await createSession(ctx.db);
      session = created.session;
      setCookie(c, SESSION_COOKIE, created.token, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure: ctx.settings.cookieSecure,
        maxAge: COOKIE_MAX_AGE_S,
      });
      cache.set(created.token, { id: session.id, touchedAt: Date.now() });
    } else if (token) {
      const cached = cache.get(token);
      if (cached === undefined || cached.id !== session.id || Date.now() - cached.touchedAt >= touchMs) {
        await touchSession(ctx.db, session.id);
        cache.keepFound(token, { id: session.id, touchedAt: Date.now() }, generation);
      }
    }
    c.header('Cache-Control', 'no-store');
    const body: LocalSessionResponse = { data: toSessionData(session) };
    return c.json(body);
  });

  /** The session check of every /api call (sessions/cache.ts says when the database is asked). */
  const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token) return jsonError(c, 401, 'NO_SESSION', 'No session: call GET /auth/local-session first');
    const now = Date.now();
    let entry = cache.get(token);
    if (entry === undefined || !cache.trusted) {
      const generation = cache.generation;
      const found = await lookupToken(ctx.db, token);
      if (found === null || found.signedOut) {
        cache.delete(token);
        if (found?.signedOut) return jsonError(c, 401, SIGNED_OUT, SIGNED_OUT_MESSAGE);
        return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
      }
      if (entry === undefined || entry.id !== found.sessionId) {
        await touchSession(ctx.db, found.sessionId);
        entry = { id: found.sessionId, touchedAt: now };
        // A sign-out while the token was looked up: this call was before it, the next one asks again.
        cache.keepFound(token, entry, generation);
      }
    }
    if (now - entry.touchedAt >= touchMs) {
      // Due for a touch: write last_seen_at, which also tells whether the session still exists.
      if (await touchSession(ctx.db, entry.id)) entry.touchedAt = now;
      else {
        cache.delete(token);
        return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
      }
    }
    c.set('sessionId', entry.id);
    await next();
  };
  return requireSession;
}
