/**
 * The recovery code (beyond the spec; ./recovery.ts) and GET /auth/account-merge-check (spec 001 section 7).
 *
 *  POST /api/session/recovery-code -> { code } (shown once); the old code stops working and every other browser
 *       of the session is signed out (401 SIGNED_OUT if this browser was itself signed out meanwhile).
 *  POST /api/session/sign-out-others -> { ok: true }: every other browser of the session is signed out; this one
 *       stays signed in (store.ts, signOutOtherBrowsers).
 *  POST /auth/recover { code } -> the session's data, and this browser's cookie now opens it; wrong codes 401,
 *       rate-limited per client address (429).
 *  POST /api/session/display-currency { displayCurrency: 'USD' | 'XNO' } -> the session's displayCurrency.
 *  GET /auth/account-merge-check -> { canMigrate, hasRecoveryCode }: canMigrate is true when this session holds
 *       something worth carrying to another browser (money, replies, a deposit address) and has no recovery code
 *       yet (docs/decisions.md).
 */
import type { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import type { Limiter } from '../guards/rate-limit';
import { SIGNED_OUT, SIGNED_OUT_MESSAGE } from '../../protocol/api';
import { DisplayCurrencySchema, RecoverSchema } from '../../protocol/payments';
import { sessionCache } from './cache';
import { createRecoveryCode, hasRecoveryCode, recoverSession } from './recovery';
import { findSession, findSessionByToken, SESSION_COOKIE, signOutOtherBrowsers, TOKEN_SIGNED_OUT, toSessionData } from './store';

const COOKIE_MAX_AGE_S = 400 * 24 * 3600;

export function registerRecoveryRoutes(app: Hono<AppEnv>, ctx: RouteContext, secret: string | null, guessLimit: Limiter): void {
  const cache = sessionCache(ctx.db);
  /** After a sign-out: this process forgets the other browsers' tokens (sessions/cache.ts). */
  const signedOut = (sessionId: string, kept: string) => cache.dropSession(sessionId, kept);

  app.post('/api/session/recovery-code', async (c) => {
    c.header('Cache-Control', 'no-store');
    const token = getCookie(c, SESSION_COOKIE) ?? '';
    const code = await createRecoveryCode(ctx.db, secret, c.get('sessionId'), token);
    if (code === TOKEN_SIGNED_OUT) return jsonError(c, 401, SIGNED_OUT, SIGNED_OUT_MESSAGE);
    signedOut(c.get('sessionId'), token);
    return c.json({ code });
  });

  app.post('/api/session/sign-out-others', async (c) => {
    const token = getCookie(c, SESSION_COOKIE) ?? '';
    const done = await signOutOtherBrowsers(ctx.db, c.get('sessionId'), token);
    if (done === TOKEN_SIGNED_OUT) return jsonError(c, 401, SIGNED_OUT, SIGNED_OUT_MESSAGE);
    signedOut(c.get('sessionId'), token);
    c.header('Cache-Control', 'no-store');
    return c.json({ ok: true });
  });

  app.post('/api/session/display-currency', async (c) => {
    const b = await readJson(c, 4096);
    if (!b.ok) return b.response;
    const parsed = DisplayCurrencySchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    await ctx.db.query('UPDATE sessions SET display_currency = $2 WHERE id = $1', [c.get('sessionId'), parsed.data.displayCurrency]);
    return c.json({ displayCurrency: parsed.data.displayCurrency });
  });

  app.post('/auth/recover', async (c) => {
    const b = await readJson(c, 4096);
    if (!b.ok) return b.response;
    const parsed = RecoverSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    const refused = await guessLimit.check(c);
    if (refused) return refused;
    const found = await recoverSession(ctx.db, secret, parsed.data.code);
    if (!found) return jsonError(c, 401, 'WRONG_RECOVERY_CODE', 'That recovery code does not open any session');
    setCookie(c, SESSION_COOKIE, found.token, { httpOnly: true, sameSite: 'Lax', path: '/', secure: ctx.settings.cookieSecure, maxAge: COOKIE_MAX_AGE_S });
    const session = await findSession(ctx.db, found.sessionId);
    if (!session) return jsonError(c, 401, 'WRONG_RECOVERY_CODE', 'That recovery code does not open any session');
    c.header('Cache-Control', 'no-store');
    return c.json({ data: toSessionData(session) });
  });

  app.get('/auth/account-merge-check', async (c) => {
    c.header('Cache-Control', 'no-store');
    const token = getCookie(c, SESSION_COOKIE);
    const session = token ? await findSessionByToken(ctx.db, token) : null;
    if (!session || session === TOKEN_SIGNED_OUT) return c.json({ canMigrate: false, hasRecoveryCode: false });
    const saved = await hasRecoveryCode(ctx.db, session.id);
    const worth = session.usdMicro > 0n || session.nanoRaw > 0n || session.numReplies > 0 || session.nanoDepositAddress !== null;
    return c.json({ canMigrate: worth && !saved, hasRecoveryCode: saved });
  });
}
