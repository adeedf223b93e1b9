/**
 * Loopback admin routes, used by `npm run admin` while a gateway with embedded PGlite owns the data folder (PGlite
 * allows one process per folder). Enabled only with an admin token, which the gateway writes to
 * {PARLEY_DATA_DIR}/gateway.json (mode 0600) at startup; the request must carry `Authorization: Bearer <token>`
 * and, by default, come over a direct loopback connection (guards/admin-access.ts, mounted in app.ts).
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Hono } from 'hono';
import { z } from 'zod';
import { AdminConflictError, AdminError, creditSession, showSession } from './ops';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';

const CreditBody = z.object({
  session: z.string().min(1).max(200),
  amount: z.string().min(1).max(80),
  currency: z.enum(['USD', 'XNO']),
  key: z.string().min(1).max(200).optional(),
});

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export function registerAdminRoutes(app: Hono<AppEnv>, ctx: RouteContext, adminToken: string): void {
  app.use('/admin/*', async (c, next) => {
    const auth = c.req.header('authorization') ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!token || !sameSecret(token, adminToken)) return jsonError(c, 403, 'FORBIDDEN', 'Admin token required');
    await next();
  });
  app.post('/admin/credit', async (c) => {
    const body = await readJson(c, ctx.settings.maxBodyBytes);
    if (!body.ok) return body.response;
    const parsed = CreditBody.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    try {
      return c.json(await creditSession(ctx.db, ctx.ledger, parsed.data));
    } catch (e) {
      if (e instanceof AdminConflictError) return jsonError(c, 409, 'KEY_CONFLICT', e.message);
      if (e instanceof AdminError) return jsonError(c, 400, 'BAD_REQUEST', e.message);
      throw e;
    }
  });
  app.get('/admin/session/:id', async (c) => {
    try {
      return c.json(await showSession(ctx.db, c.req.param('id')));
    } catch (e) {
      if (e instanceof AdminError) return jsonError(c, 404, 'NOT_FOUND', e.message);
      throw e;
    }
  });
}
