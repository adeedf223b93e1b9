/**
 * GET /auth/local-session (spec 001 section 7) and the session check of every /api call.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { LocalSessionResponse } from '../../protocol/api';
import { jsonError, type AppEnv, type RouteContext } from '../context';
import { createSession, findSessionByToken, findSessionIdByToken, SESSION_COOKIE, toSessionData, touchSession } from '../sessions/store';

const COOKIE_MAX_AGE_S = 400 * 24 * 3600; // the most browsers keep a cookie

/**
 * token -> session id. Sessions are never deleted or re-keyed, so the mapping cannot go stale; caching it keeps
 * the database off the hot path of every /api call (the relay's added latency budget is < 1 ms).
 */
class SessionCache {
  private map = new Map<string, string>();
  constructor(private readonly max: number) {}
  get(token: string): string | undefined {
    const v = this.map.get(token);
    if (v !== undefined) {
      this.map.delete(token);
      this.map.set(token, v);
    }
    return v;
  }
  set(token: string, id: string): void {
    this.map.set(token, id);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }
}

export function registerSessionRoutes(app: Hono<AppEnv>, ctx: RouteContext): MiddlewareHandler<AppEnv> {
  const cache = new SessionCache(10_000);

  app.get('/auth/local-session', async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    let session = token ? await findSessionByToken(ctx.db, token) : null;
    if (!session) {
      const created = await createSession(ctx.db);
      session = created.session;
      setCookie(c, SESSION_COOKIE, created.token, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure: ctx.settings.cookieSecure,
        maxAge: COOKIE_MAX_AGE_S,
      });
      cache.set(created.token, session.id);
    } else if (token) {
      cache.set(token, session.id);
      await touchSession(ctx.db, session.id);
    }
    c.header('Cache-Control', 'no-store');
    const body: LocalSessionResponse = { data: toSessionData(session) };
    return c.json(body);
  });

  const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token) return jsonError(c, 401, 'NO_SESSION', 'No session: call GET /auth/local-session first');
    let id = cache.get(token);
    if (id === undefined) {
      const found = await findSessionIdByToken(ctx.db, token);
      if (found === null) return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
      id = found;
      cache.set(token, id);
    }
    c.set('sessionId', id);
    await next();
  };
  return requireSession;
}
