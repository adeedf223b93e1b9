/**
 * The recovery code (beyond the spec; ./recovery.ts) and GET /auth/account-merge-check (spec 001 section 7).
 *
 *  POST /api/session/recovery-code -> { code } (shown once)
 *  POST /auth/recover { code } -> the session's data, and this browser's cookie now opens it; wrong codes 401,
 *       rate-limited per client address (429).
 *  POST /api/session/display-currency { displayCurrency: 'USD' | 'XNO' } -> the session's displayCurrency.
 *  GET /auth/account-merge-check -> { canMigrate, hasRecoveryCode }: canMigrate is true when this session holds
 *       something worth carrying to another browser (money, replies, a deposit address) and has no recovery code
 *       yet (docs/decisions.md).
 */
import type { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { describeIssues, jsonError, readJson, type AppEnv, type RouteContext } from '../context';
import type { Limiter } from '../guards/rate-limit';
import { DisplayCurrencySchema, RecoverSchema } from '../../protocol/payments';
import { createRecoveryCode, hasRecoveryCode, recoverSession } from './recovery';
import { findSession, findSessionByToken, SESSION_COOKIE, toSessionData } from './store';

const COOKIE_MAX_AGE_S = 400 * 24 * 3600;

export function registerRecoveryRoutes(app: Hono<AppEnv>, ctx: RouteContext, secret: string | null, guessLimit: Limiter): void {
  app.post('/api/session/recovery-code', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ code: await createRecoveryCode(ctx.db, secret, c.get('sessionId')) });
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
    if (!session) return c.json({ canMigrate: false, hasRecoveryCode: false });
    const saved = await hasRecoveryCode(ctx.db, session.id);
    const worth = session.usdMicro > 0n || session.nanoRaw > 0n || session.numReplies > 0 || session.nanoDepositAddress !== null;
    return c.json({ canMigrate: worth && !saved, hasRecoveryCode: saved });
  });
}
