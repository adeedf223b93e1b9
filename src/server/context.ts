/**
 * What every route module is handed (RouteContext, AppSettings): the one type that joins the infrastructure and the
 * domains, built by app.ts. Types only; the HTTP helpers routes share are in ./http.ts.
 */
import type { GuardConfig } from './config';
import type { Db } from './db/types';
import type { Ledger } from './money/ledger';
import type { Catalogue } from './chat/catalogue';
import type { ReplyRegistry } from './chat/reply-registry';
import type { Limiter } from './guards/rate-limit';
import type { RequestBinder } from './body/request-binding';
import type { BodyParsePool } from './body/parse-pool';
import type { ClientAddressFn } from './guards/client-address';
import type { ParsePool } from './parse/pool';
import type { UploadBudget } from './guards/upload-budget';

export interface AppSettings {
  /** Upstream silence that counts as a stall, ms (PARLEY_STALL_MS). */
  stallMs: number;
  /** Set the Secure flag on the session cookie (PARLEY_COOKIE_SECURE; needs https). */
  cookieSecure: boolean;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** How long a reply whose client went away keeps relaying, waiting for a resume, ms (PARLEY_RESUME_GRACE_MS). */
  resumeGraceMs: number;
  /** Model that writes conversation titles (PARLEY_TITLE_MODEL); unset = the offline deterministic title. */
  titleModel?: string | null;
  /** Vision model that describes images (PARLEY_VISION_MODEL); unset = the offline engine's description. */
  visionModel?: string | null;
  /** Client address, rate limits, cross-site and admin checks (guards/, docs/gateway.md "Security and limits"). */
  guards: GuardConfig;
  /** A client that accepts no byte of its reply for this long is taken as gone, ms (PARLEY_CLIENT_TIMEOUT_MS). */
  clientTimeoutMs?: number;
}

/** What every route module gets. */
export interface RouteContext {
  db: Db;
  ledger: Ledger;
  catalogue: Catalogue;
  settings: AppSettings;
  /** Streamed replies in flight and recently finished, for resume, Stop and retries (chat/reply-registry.ts). */
  replies: ReplyRegistry;
  /**
   * Per-address limit for costly requests (model replies, paid tools). app.ts applies it to the routes it knows;
   * a new costly route calls `await ctx.costlyLimit.check(c)` (a 429 Response, or null to go on) or mounts
   * `ctx.costlyLimit.middleware` (guards/rate-limit.ts).
   */
  costlyLimit: Limiter;
  /** requestId bindings (body/request-binding.ts). */
  bindings: RequestBinder;
  /** Parses large reply bodies off the event loop (body/parse-pool.ts); read them with body/read-body.ts. */
  bodies: BodyParsePool;
  /** The request's client address (guards/client-address.ts): what per-address limits and quotas count by. */
  clientAddress: ClientAddressFn;
  /** Reads untrusted content (pages, documents, images) in worker threads within budgets (parse/pool.ts). */
  parse: ParsePool;
  /** Upload bytes held in memory, capped per session and overall (guards/upload-budget.ts). */
  uploads: UploadBudget;
  log: (line: string) => void;
}
