/**
 * GET /auth/local-session (spec 001 section 7) and the session check of every /api call.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { LocalSessionResponse } from '../../protocol/api';
import { jsonError, type AppEnv, type RouteContext } from '../context';
import type { Limiter } from '../guards/rate-limit';
import { createSession, findSessionByToken, findSessionIdByToken, SESSION_COOKIE, toSessionData, touchSession } from '../sessions/store';

const COOKIE_MAX_AGE_S = 400 * 24 * 3600; // the most browsers keep a cookie

/**
 * token -> session id, with when this process last wrote the session's last_seen_at. Caching keeps the database
 * off the hot path of every /api call (the relay's added latency budget is < 1 ms). Sessions do get deleted (idle
 * ones that never held money, sessions/expiry.ts), so an entry is trusted for at most the touch interval: after
 * that the next call touches the row, which also proves it still exists; a session gone is dropped and refused.
 * The touch interval is at most half the idle time (config.ts), so no entry outlives an expired session.
 */
interface CacheEntry {
  id: string;
  touchedAt: number;
}

class SessionCache {
  private map = new Map<string, CacheEntry>();
  constructor(private readonly max: number) {}
  get(token: string): CacheEntry | undefined {
    const v = this.map.get(token);
    if (v !== undefined) {
      this.map.delete(token);
      this.map.set(token, v);
    }
    return v;
  }
  set(token: string, entry: CacheEntry): void {
    this.map.delete(token);
    this.map.set(token, entry);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }
  delete(token: string): void {
    this.map.delete(token);
  }
}

export interface SessionRouteOptions {
  /** Limits session creation per client address (guards/rate-limit.ts). */
  creationLimiter: Limiter;
}

export function registerSessionRoutes(app: Hono<AppEnv>, ctx: RouteContext, opts: SessionRouteOptions): MiddlewareHandler<AppEnv> {
  const cache = new SessionCache(10_000);
  const touchMs = ctx.settings.guards.sessionTouchMs;

  app.get('/auth/local-session', async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    // The session reads its own replies: the $0 entries of its free replies still queued are written first (a
    // session with replies in flight here is in the token cache).
    const known = token ? cache.get(token) : undefined;
    if (known) await ctx.ledger.freeReplies.flushFor(known.id);
    let session = token ? await findSessionByToken(ctx.db, token) : null;
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
      if (cached === undefined || Date.now() - cached.touchedAt >= touchMs) {
        await touchSession(ctx.db, session.id);
        cache.set(token, { id: session.id, touchedAt: Date.now() });
      }
    }
    c.header('Cache-Control', 'no-store');
    const body: LocalSessionResponse = { data: toSessionData(session) };
    return c.json(body);
  });

  const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token) return jsonError(c, 401, 'NO_SESSION', 'No session: call GET /auth/local-session first');
    const now = Date.now();
    let entry = cache.get(token);
    if (entry !== undefined && now - entry.touchedAt >= touchMs) {
      // Due for a touch: write last_seen_at, which also tells whether the session still exists.
      if (await touchSession(ctx.db, entry.id)) entry.touchedAt = now;
      else {
        cache.delete(token);
        entry = undefined;
      }
    }
    if (entry === undefined) {
      const found = await findSessionIdByToken(ctx.db, token);
      if (found === null) return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
      await touchSession(ctx.db, found);
      entry = { id: found, touchedAt: now };
      cache.set(token, entry);
    }
    c.set('sessionId', entry.id);
    await next();
  };
  return requireSession;
}
