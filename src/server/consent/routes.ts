/**
 * Analytics consent (spec 001 sections 3, 4, 6 and 7), stored per session in `consents` (migration 8):
 *   GET  /api/consent/status               -> the session's consent state
 *   POST /api/consent/require-for-ads      {source}            -> pending, unless already decided (or mode never)
 *   POST /api/consent/grant                {categories: ['analytics']} -> granted, analyticsConsent true
 *   POST /api/consent/deny                 {categories: ['analytics']} -> denied, analyticsConsent false
 * Every call needs a session (the /api session check). Each answer is the whole state (ConsentState).
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { ConsentState, ConsentStatus } from '../../protocol/account';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import type { Queryable } from '../db/types';
import type { ConsentConfig } from './config';

const BODY_BYTES = 4 * 1024;

/** A source as the client read it (query, session storage or a cookie): short, printable, no control characters. */
export const ConsentSourceSchema = z.object({
  source: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[\x20-\x7E]+$/, 'printable ASCII only'),
});
/** The one category there is (spec 001 section 7: categories [analytics]). */
export const ConsentCategoriesSchema = z.object({ categories: z.array(z.literal('analytics')).min(1).max(1) });

interface ConsentRow {
  [k: string]: unknown;
  status: ConsentStatus;
  analytics: boolean;
  policy_version: string;
  updated_ms: string | number;
}

const SELECT = `SELECT status, analytics, policy_version, (extract(epoch FROM updated_at) * 1000)::bigint::text AS updated_ms FROM consents WHERE session_id = $1`;

export async function readConsent(db: Queryable, sessionId: string, cfg: ConsentConfig): Promise<ConsentState> {
  const [row] = await db.query<ConsentRow>(SELECT, [sessionId]);
  if (!row) {
    return { consentStatus: cfg.mode === 'always' ? 'pending' : 'not_required', analyticsConsent: false, consentLastUpdated: null, policyVersion: cfg.policyVersion };
  }
  return { consentStatus: row.status, analyticsConsent: row.analytics === true, consentLastUpdated: Number(row.updated_ms), policyVersion: row.policy_version };
}

/** Pending, unless the session already decided (granted or denied) or is already pending. */
async function requireForAds(db: Queryable, sessionId: string, source: string, cfg: ConsentConfig): Promise<void> {
  if (cfg.mode === 'never') return;
  await db.query(
    `INSERT INTO consents (session_id, status, analytics, source, policy_version) VALUES ($1, 'pending', false, $2, $3)
     ON CONFLICT (session_id) DO UPDATE SET status = 'pending', source = EXCLUDED.source, updated_at = now()
     WHERE consents.status = 'not_required'`,
    [sessionId, source, cfg.policyVersion],
  );
}

async function decide(db: Queryable, sessionId: string, granted: boolean, cfg: ConsentConfig): Promise<void> {
  await db.query(
    `INSERT INTO consents (session_id, status, analytics, policy_version) VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id) DO UPDATE SET status = EXCLUDED.status, analytics = EXCLUDED.analytics,
       policy_version = EXCLUDED.policy_version, updated_at = now()`,
    [sessionId, granted ? 'granted' : 'denied', granted, cfg.policyVersion],
  );
}

export function registerConsentRoutes(app: Hono<AppEnv>, ctx: RouteContext, cfg: ConsentConfig): void {
  const answer = async (c: Context<AppEnv>) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await readConsent(ctx.db, c.get('sessionId'), cfg));
  };

  app.get('/api/consent/status', answer);

  app.post('/api/consent/require-for-ads', async (c) => {
    const b = await readJson(c, BODY_BYTES);
    if (!b.ok) return b.response;
    const parsed = ConsentSourceSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    await requireForAds(ctx.db, c.get('sessionId'), parsed.data.source, cfg);
    return answer(c);
  });

  for (const [path, granted] of [['/api/consent/grant', true], ['/api/consent/deny', false]] as const) {
    app.post(path, async (c) => {
      const b = await readJson(c, BODY_BYTES);
      if (!b.ok) return b.response;
      const parsed = ConsentCategoriesSchema.safeParse(b.value);
      if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
      await decide(ctx.db, c.get('sessionId'), granted, cfg);
      return answer(c);
    });
  }
}
