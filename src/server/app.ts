/**
 * The gateway app: a Hono app with every route, testable in process with `app.request(...)`.
 * Start a real server with startGateway (src/server/start.ts) or `npm run serve`.
 */
import { ReplyRegistry, RESUME_GRACE_MS } from './chat/reply-registry';
import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { type AppSettings, type RouteContext } from './context';
import { jsonError, type AppEnv } from './http';
import type { Db } from './db/types';
import { Ledger } from './money/ledger';
import type { Catalogue } from './chat/catalogue';
import { registerAdminRoutes } from './admin/routes';
import { registerModelRoutes } from './chat/models-route';
import { registerSessionRoutes } from './sessions/routes';
import { registerStreamGptRoute } from './chat/stream-gpt';
import { registerConversationSummaryRoute } from './chat/conversation-summary';
import { registerTalkToGptMultiRoute } from './chat/talk-to-gpt-multi';
import { ATTACHMENT_BODY_ROUTES, ATTACHMENT_COSTLY_ROUTES, MULTIPART_ROUTES, registerAttachmentRoutes } from './documents/routes';
import { registerPreviewRoute } from './preview/route';
import { serveClient } from './static';
import { loadConfig } from './config';
import { adminAccessGuard } from './guards/admin-access';
import { clientAddressResolver, type ClientAddressFn } from './guards/client-address';
import { crossSiteGuard } from './guards/cross-site';
import { createLimiter } from './guards/rate-limit';
import { registerMediaRoutes, type MediaServices } from './media/register';
import { RequestBinder } from './body/request-binding';
import { BodyParsePool } from './body/parse-pool';
import { loadMoneyConfig } from './payments/config';
import { createMoneyServices, MONEY_PREFIXES, registerMoneyRoutes, type MoneyServices } from './payments/register';
import { registerWebRoutes, type WebDeps } from './web/register';
import { registerSpeechRoutes, type SpeechServices } from './speech/register';
import { registerConsentRoutes } from './consent/routes';
import { DEFAULT_CONSENT_CONFIG, type ConsentConfig } from './consent/config';
import { loadParseConfig, loadUploadLimits, type ParseConfig } from './parse/config';
import { ParsePool } from './parse/pool';
import { UploadBudget } from './guards/upload-budget';
import { registerShareRoutes, type ShareSettings } from './share/routes';

export interface AppDeps {
  /** Migrated database (openDatabase in src/server/db/open.ts). */
  db: Db;
  /** Model catalogue (Catalogue.create in src/server/chat/catalogue.ts). */
  catalogue: Catalogue;
  /** Micro-dollars per XNO used to charge nano balances; default 1 USD per XNO. Ignored when `ledger` is given. */
  nanoPriceUsdMicro?: bigint;
  ledger?: Ledger;
  /** Reply registry (startGateway passes one it can share and close); default: a new one in memory. */
  replies?: ReplyRegistry;
  settings?: Partial<AppSettings>;
  /** Folder of the built client to serve; omitted or null = API only. */
  clientDir?: string | null;
  /** How a request's client address is found; default from settings.guards (guards/client-address.ts). Tests. */
  clientAddress?: ClientAddressFn;
  /** Enables /admin/* for bearers of this token (see admin/routes.ts). */
  adminToken?: string | null;
  log?: (line: string) => void;
  /** Image and video models and the video job runner (src/server/media/register.ts); default: offline engines only. */
  media?: MediaServices;
  /** Called with what must run when the gateway closes (before the database does): leased rate-limit tokens go back. */
  onClose?: (fn: () => Promise<void>) => void;
  /** Payments, invitations, nano, recovery (payments/register.ts); default: built from an empty environment. */
  money?: MoneyServices;
  /** Web search, scraping and suggestions (src/server/web/register.ts). */
  web?: WebDeps;
  /** Speech models, the TTS job runner and transcription (src/server/speech/register.ts); default: the offline voice. */
  speech?: SpeechServices;
  /** Who is asked for analytics consent (src/server/consent/config.ts); default: visitors from a tracked source. */
  consent?: ConsentConfig;
  /** Threads and budgets for untrusted content (src/server/parse/config.ts); default from an empty environment. */
  parse?: ParseConfig;
  /** Start the parse threads now and have them load pdf.js (the gateway's start passes parse.warmAtStart). */
  warmReaders?: boolean;
  /** Upload bytes held in memory, within caps (guards/upload-budget.ts); default: the caps of an empty environment. */
  uploads?: UploadBudget;
  /** Share links' size, rate and count limits (src/server/share/routes.ts); default DEFAULT_SHARE_SETTINGS. */
  share?: ShareSettings;
}

export const DEFAULT_SETTINGS: AppSettings = {
  stallMs: 30_000,
  cookieSecure: false,
  maxBodyBytes: 25 * 1024 * 1024,
  resumeGraceMs: RESUME_GRACE_MS,
  guards: loadConfig({}).guards,
};

/**
 * Largest body of every JSON route but the reply routes ({requestId}, a title's 20,000 characters, an admin
 * credit): parsing is on the event loop, so a small route does not accept the reply routes' 25 MiB.
 */
export const SMALL_BODY_BYTES = 256 * 1024;

/** Routes whose body carries a conversation (its images too): PARLEY_MAX_BODY_BYTES applies. */
const LARGE_BODY_ROUTES = new Set(['/api/stream-gpt', '/api/talk-to-gpt-multi', '/api/generate-image', '/api/generate-openai-image', '/api/generate-video']);
for (const path of ATTACHMENT_BODY_ROUTES) LARGE_BODY_ROUTES.add(path);
/** Voice recordings (src/server/speech/transcribe-route.ts checks their own limit). */
LARGE_BODY_ROUTES.add('/api/transcribe');
/** A shared conversation's log (src/server/share/routes.ts checks its own limit). */
LARGE_BODY_ROUTES.add('/api/share');

/** Routes that spend money or upstream capacity: limited per client address (PARLEY_COSTLY_RATE_*). */
const COSTLY_ROUTES = ['/api/stream-gpt', '/api/talk-to-gpt-multi', '/api/conversation-summary', '/api/generate-image', '/api/generate-openai-image', '/api/generate-video'];
COSTLY_ROUTES.push(...ATTACHMENT_COSTLY_ROUTES);

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const settings: AppSettings = { ...DEFAULT_SETTINGS, ...deps.settings };
  const log = deps.log ?? ((line: string) => console.error(`[gateway] ${line}`));
  const ledger = deps.ledger ?? new Ledger(deps.db, { nanoPriceUsdMicro: deps.nanoPriceUsdMicro ?? 1_000_000n, log });
  const replies = deps.replies ?? new ReplyRegistry({ graceMs: settings.resumeGraceMs });
  const address = deps.clientAddress ?? clientAddressResolver(settings.guards.trustedProxyHeader);
  const costlyLimit = createLimiter(deps.db, 'costly', settings.guards.costlyRate, address, 'requests', log);
  const sessionLimit = createLimiter(deps.db, 'sessions', settings.guards.sessionRate, address, 'new sessions', log);
  const bindings = new RequestBinder(deps.db, log);
  // On the embedded database bindings are written behind: a free reply's $0 entry never goes before its binding.
  ledger.freeReplies.writeAfter(() => bindings.written());
  const bodies = new BodyParsePool(log);
  const parse = new ParsePool(deps.parse ?? loadParseConfig({}), log);
  if (deps.warmReaders) parse.warmUp(); // so that the first PDF after a start does not wait seconds for pdf.js
  const uploads = deps.uploads ?? new UploadBudget(loadUploadLimits({}));
  deps.onClose?.(async () => {
    await Promise.all([costlyLimit.close(), sessionLimit.close(), bodies.close(), parse.close(), bindings.written()]);
  });
  const ctx: RouteContext = { db: deps.db, ledger, catalogue: deps.catalogue, settings, replies, costlyLimit, bindings, bodies, parse, uploads, clientAddress: address, log };
  const app = new Hono<AppEnv>();

  // Before anything reads a body or a session: state-changing requests must be JSON from this site.
  const crossSite = crossSiteGuard(settings.guards.allowedOrigins, MULTIPART_ROUTES);
  const smallBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (c.req.method === 'POST' && !LARGE_BODY_ROUTES.has(c.req.path) && Number(c.req.header('content-length') ?? 0) > SMALL_BODY_BYTES) {
      return jsonError(c, 413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${SMALL_BODY_BYTES} bytes`);
    }
    await next();
  };
  for (const prefix of ['/api/*', '/auth/*', '/admin/*', '/notion/*']) {
    app.use(prefix, crossSite);
    app.use(prefix, smallBodies);
  }
  for (const prefix of MONEY_PREFIXES) {
    app.use(prefix, crossSite);
    app.use(prefix, smallBodies);
  }

  // Body size is enforced where bodies are read (readJson in context.ts): hono's bodyLimit middleware re-wraps
  // the request in a web stream, which takes the body off @hono/node-server's fast path.
  app.get('/healthz', (c) => c.json({ ok: true }));

  const requireSession = registerSessionRoutes(app, ctx, { creationLimiter: sessionLimit });
  app.use('/api/*', requireSession);
  app.use('/notion/*', requireSession);
  for (const path of COSTLY_ROUTES) app.use(path, costlyLimit.middleware);
  registerModelRoutes(app, ctx);
  registerStreamGptRoute(app, ctx);
  registerConversationSummaryRoute(app, ctx);
  registerTalkToGptMultiRoute(app, ctx);
  registerMediaRoutes(app, ctx, deps.media);
  const money = deps.money ?? createMoneyServices(deps.db, ledger, loadMoneyConfig({}), log);
  const moneyRoutes = registerMoneyRoutes(app, ctx, money, address, requireSession);
  deps.onClose?.(() => moneyRoutes.close());
  registerAttachmentRoutes(app, ctx);
  registerWebRoutes(app, ctx, deps.web);
  deps.catalogue.attachSpeech(registerSpeechRoutes(app, ctx, deps.speech).catalogue);
  registerConsentRoutes(app, ctx, deps.consent ?? DEFAULT_CONSENT_CONFIG);
  const shares = registerShareRoutes(app, ctx, deps.share);
  deps.onClose?.(() => shares.close());
  if (deps.adminToken) {
    app.use('/admin/*', adminAccessGuard(settings.guards.adminLoopbackOnly));
    registerAdminRoutes(app, ctx, deps.adminToken);
  }

  registerPreviewRoute(app);

  if (deps.clientDir) app.use('*', serveClient(deps.clientDir, { connectSrc: money.cfg.nano?.websocketUrls ?? [] }));

  app.notFound((c) => {
    const path = c.req.path;
    if (/^\/(api|auth|admin|notion)(\/|$)/.test(path)) return jsonError(c, 404, 'NOT_FOUND', `No route ${c.req.method} ${path}`);
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
