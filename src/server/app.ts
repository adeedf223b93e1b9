/**
 * The gateway app: a Hono app with every route, testable in process with `app.request(...)`.
 * Start a real server with startGateway (src/server/start.ts) or `npm run serve`.
 */
import { ReplyRegistry, RESUME_GRACE_MS } from './routes/reply-registry';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { jsonError, type AppEnv, type AppSettings, type RouteContext } from './context';
import type { Db } from './db/types';
import { Ledger } from './ledger/ledger';
import type { Catalogue } from './providers/catalogue';
import { registerAdminRoutes } from './routes/admin';
import { registerModelRoutes } from './routes/models';
import { registerSessionRoutes } from './routes/session';
import { registerStreamGptRoute } from './routes/stream-gpt';
import { registerTalkToGptMultiRoute } from './routes/talk-to-gpt-multi';
import { registerConversationSummaryRoute } from './routes/conversation-summary';
import { serveClient } from './static';

export interface AppDeps {
  /** Migrated database (openDatabase in src/server/db/open.ts). */
  db: Db;
  /** Model catalogue (Catalogue.create in src/server/providers/catalogue.ts). */
  catalogue: Catalogue;
  /** Micro-dollars per XNO used to charge nano balances; default 1 USD per XNO. Ignored when `ledger` is given. */
  nanoPriceUsdMicro?: bigint;
  ledger?: Ledger;
  /** Reply registry (startGateway passes one it can share and close); default: a new one in memory. */
  replies?: ReplyRegistry;
  settings?: Partial<AppSettings>;
  /** Folder of the built client to serve; omitted or null = API only. */
  clientDir?: string | null;
  /** Enables /admin/* for bearers of this token (see routes/admin.ts). */
  adminToken?: string | null;
  log?: (line: string) => void;
}

export const DEFAULT_SETTINGS: AppSettings = { stallMs: 30_000, cookieSecure: false, maxBodyBytes: 25 * 1024 * 1024, resumeGraceMs: RESUME_GRACE_MS };

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const settings: AppSettings = { ...DEFAULT_SETTINGS, ...deps.settings };
  const log = deps.log ?? ((line: string) => console.error(`[gateway] ${line}`));
  const ledger = deps.ledger ?? new Ledger(deps.db, { nanoPriceUsdMicro: deps.nanoPriceUsdMicro ?? 1_000_000n });
  const replies = deps.replies ?? new ReplyRegistry({ graceMs: settings.resumeGraceMs });
  const ctx: RouteContext = { db: deps.db, ledger, catalogue: deps.catalogue, settings, replies, log };
  const app = new Hono<AppEnv>();

  // Body size is enforced where bodies are read (readJson in context.ts): hono's bodyLimit middleware re-wraps
  // the request in a web stream, which takes the body off @hono/node-server's fast path.
  app.get('/healthz', (c) => c.json({ ok: true }));

  const requireSession = registerSessionRoutes(app, ctx);
  app.use('/api/*', requireSession);
  registerModelRoutes(app, ctx);
  registerStreamGptRoute(app, ctx);
  registerTalkToGptMultiRoute(app, ctx);
  registerConversationSummaryRoute(app, ctx);
  if (deps.adminToken) registerAdminRoutes(app, ctx, deps.adminToken);

  if (deps.clientDir) app.use('*', serveClient(deps.clientDir));

  app.notFound((c) => {
    const path = c.req.path;
    if (/^\/(api|auth|admin)(\/|$)/.test(path)) return jsonError(c, 404, 'NOT_FOUND', `No route ${c.req.method} ${path}`);
    return c.text('Not found', 404);
  });

  app.onError((err, c) => {
    if (err instanceof HTTPException && err.status < 500) {
      return jsonError(c, err.status as 400, 'BAD_REQUEST', err.message || 'Bad request');
    }
    log(`internal error on ${c.req.method} ${c.req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return jsonError(c, 500, 'INTERNAL', 'Internal server error');
  });

  return app;
}
