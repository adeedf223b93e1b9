/**
 * Gateway configuration from environment variables (docs/gateway.md lists them all). Every value is validated
 * here; a bad value stops the gateway at startup with a message naming the variable.
 */
import { z } from 'zod';
import { AmountError, parseDecimal, type PriceUnits } from './money/amounts';
import { loadMediaConfig, type MediaConfig } from './media/config';
import { loadMoneyConfig, type MoneyConfig } from './payments/config';
import { ConfigError, intVar, type Env, type RateLimit } from './env-vars';
import { SAMPLING_NAMES, type SamplingName } from '../protocol/sampling';

export interface UpstreamConfig {
  /** Provider label and id (ModelInfo.provider). */
  name: string;
  /** OpenAI-compatible base URL, without a trailing slash, e.g. https://api.openai.com/v1. */
  url: string;
  key: string | null;
  /** Model ids; null = discover with GET {url}/models at startup. */
  models: string[] | null;
  /** USD per 1M tokens by model id; models missing here are free. */
  pricing: Map<string, PriceUnits>;
  /** The model settings it takes (src/server/providers/sampling.ts); null = by its URL. */
  params: SamplingName[] | null;
}

export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  clientDir: string;
  /** Micro-dollars per XNO. */
  nanoPriceUsdMicro: bigint;
  offlineTokenDelayMs: number;
  stallMs: number;
  resumeGraceMs: number;
  discoveryTimeoutMs: number;
  cookieSecure: boolean;
  maxBodyBytes: number;
  /** How long a finished reply stays resumable, ms (PARLEY_REPLY_RETAIN_MS). */
  replyRetainMs: number;
  /** Budget for the text of replies held in memory, bytes (PARLEY_REPLY_BUFFER_MB). */
  replyBufferBytes: number;
  /** Catalogue id of the model that writes conversation titles; null = deterministic offline titles. */
  titleModel: string | null;
  upstreams: UpstreamConfig[];
  /** Request guards: client address, rate limits, cross-site checks, admin access (docs/gateway.md "Security and limits"). */
  guards: GuardConfig;
  /** A session that never held money expires after this long unused, ms (PARLEY_SESSION_IDLE_MS). */
  sessionIdleMs: number;
  /** How often the expiry sweep runs, ms (PARLEY_SESSION_SWEEP_MS). */
  sessionSweepMs: number;
  /** Image and video providers and the video job runner's timing (src/server/media/config.ts). */
  media: MediaConfig;
  /** A client that accepts no byte of its reply for this long is taken as gone, ms (PARLEY_CLIENT_TIMEOUT_MS). */
  clientTimeoutMs: number;
  /** Payments, nano, invitations, recovery codes (payments/config.ts). */
  money: MoneyConfig;
  /** Catalogue id of the vision model that describes images (PARLEY_VISION_MODEL); null = the offline description. */
  visionModel: string | null;
}

export interface GuardConfig {
  /** Header a trusted reverse proxy sets to the client address (right-most entry is used); null = the socket address. */
  trustedProxyHeader: string | null;
  /** Origins besides the gateway's own that may send state-changing requests (PARLEY_ALLOWED_ORIGINS). */
  allowedOrigins: string[];
  /** New sessions per client address (PARLEY_SESSION_RATE_*). */
  sessionRate: RateLimit;
  /** Costly requests (model replies) per client address (PARLEY_COSTLY_RATE_*). */
  costlyRate: RateLimit;
  /** last_seen_at is written at most once per this many ms per session (PARLEY_SESSION_TOUCH_MS). */
  sessionTouchMs: number;
  /** Admin routes answer only loopback connections without proxy headers (PARLEY_ADMIN_LOOPBACK_ONLY). */
  adminLoopbackOnly: boolean;
}

const PriceValue = z.union([z.string(), z.number().nonnegative().finite()]);
const PricingSchema = z.record(z.string(), z.object({ input: PriceValue, output: PriceValue }));
const ModelsValue = z.union([z.string(), z.array(z.string())]);
const ProviderSchema = z.object({
  name: z.string().min(1).max(60).optional(),
  url: z.string().min(1),
  key: z.string().optional().nullable(),
  models: ModelsValue.optional().nullable(),
  pricing: PricingSchema.optional().nullable(),
  params: z.union([z.string(), z.array(z.string())]).optional().nullable(),
});
const ProvidersSchema = z.array(ProviderSchema).max(50);

function boolVar(env: Env, name: string, def: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return def;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function priceUnits(v: string | number, where: string): bigint {
  const text = typeof v === 'number' ? String(v) : v;
  try {
    return parseDecimal(text, 6, `price in ${where}`);
  } catch (e) {
    throw new ConfigError(e instanceof AmountError ? e.message : String(e));
  }
}

function parsePricing(value: unknown, where: string): Map<string, PriceUnits> {
  const parsed = PricingSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(`${where} must be a JSON object like {"model-id":{"input":"0.15","output":"0.60"}}: ${parsed.error.issues[0]?.message ?? ''}`);
  }
  const out = new Map<string, PriceUnits>();
  for (const [model, p] of Object.entries(parsed.data)) {
    out.set(model, {
      inputMicroPerM: priceUnits(p.input, `${where} (${model}.input)`),
      outputMicroPerM: priceUnits(p.output, `${where} (${model}.output)`),
    });
  }
  return out;
}

function parseJsonVar(env: Env, name: string): unknown {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (e) {
    throw new ConfigError(`${name} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function modelList(v: string | string[] | null | undefined): string[] | null {
  if (v === undefined || v === null) return null;
  const list = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0);
  return list.length > 0 ? [...new Set(list)] : null;
}

/** A list of model settings an upstream takes ('temperature,top_p'; 'none' for none); null when not given. */
function paramList(v: string | string[] | null | undefined, where: string): SamplingName[] | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
  const list = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0 && s !== 'none');
  for (const name of list) {
    if (!(SAMPLING_NAMES as readonly string[]).includes(name)) throw new ConfigError(`${where}: unknown model setting '${name}' (known: ${SAMPLING_NAMES.join(', ')})`);
  }
  return [...new Set(list)] as SamplingName[];
}

function baseUrl(raw: string, where: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${where} must be an absolute http(s) URL, got '${raw}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${where} must use http or https, got '${raw}'`);
  return u.toString().replace(/\/+$/, '');
}

function providerName(raw: string | undefined | null, fallback: string, where: string): string {
  const name = (raw ?? '').trim() || fallback;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/.test(name)) {
    throw new ConfigError(`${where} must be letters, digits, '.', '_' or '-' (at most 60), got '${name}'`);
  }
  return name;
}

export function loadConfig(env: Env): GatewayConfig {
  const upstreams: UpstreamConfig[] = [];
  const single = env.PARLEY_UPSTREAM_URL?.trim();
  if (single) {
    upstreams.push({
      name: providerName(env.PARLEY_UPSTREAM_NAME, 'upstream', 'PARLEY_UPSTREAM_NAME'),
      url: baseUrl(single, 'PARLEY_UPSTREAM_URL'),
      key: env.PARLEY_UPSTREAM_KEY?.trim() || null,
      models: modelList(env.PARLEY_UPSTREAM_MODELS),
      pricing: parsePricing(parseJsonVar(env, 'PARLEY_UPSTREAM_PRICING') ?? {}, 'PARLEY_UPSTREAM_PRICING'),
      params: paramList(env.PARLEY_UPSTREAM_PARAMS, 'PARLEY_UPSTREAM_PARAMS'),
    });
  }
  const many = parseJsonVar(env, 'PARLEY_PROVIDERS');
  if (many !== undefined) {
    const parsed = ProvidersSchema.safeParse(many);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(
        `PARLEY_PROVIDERS must be a JSON array of {name, url, key, models, pricing}: ${issue ? `${issue.path.join('.')} ${issue.message}` : ''}`,
      );
    }
    parsed.data.forEach((p, i) => {
      const where = `PARLEY_PROVIDERS[${i}]`;
      upstreams.push({
        name: providerName(p.name, `upstream-${upstreams.length + 1}`, `${where}.name`),
        url: baseUrl(p.url, `${where}.url`),
        key: p.key?.trim() || null,
        models: modelList(p.models),
        pricing: parsePricing(p.pricing ?? {}, `${where}.pricing`),
        params: paramList(p.params, `${where}.params`),
      });
    });
  }
  const names = new Set<string>();
  for (const u of upstreams) {
    if (names.has(u.name) || u.name === 'offline') throw new ConfigError(`Provider name '${u.name}' is used twice (or is reserved)`);
    names.add(u.name);
  }

  let nanoPriceUsdMicro: bigint;
  try {
    nanoPriceUsdMicro = parseDecimal(env.PARLEY_NANO_USD_PRICE?.trim() || '1', 6, 'PARLEY_NANO_USD_PRICE');
  } catch (e) {
    throw new ConfigError(e instanceof Error ? e.message : String(e));
  }
  if (nanoPriceUsdMicro <= 0n) throw new ConfigError('PARLEY_NANO_USD_PRICE must be above 0');

  const sessionIdleMs = intVar(env, 'PARLEY_SESSION_IDLE_MS', 30 * DAY_MS, 1_000, 3650 * DAY_MS);
  return {
    port: intVar(env, 'PORT', 8787, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: env.PARLEY_DATA_DIR?.trim() || './data',
    databaseUrl: env.DATABASE_URL?.trim() || null,
    clientDir: env.PARLEY_CLIENT_DIR?.trim() || 'dist/client',
    nanoPriceUsdMicro,
    offlineTokenDelayMs: intVar(env, 'PARLEY_OFFLINE_TOKEN_DELAY_MS', 15, 0, 10_000),
    stallMs: intVar(env, 'PARLEY_STALL_MS', 30_000, 10, 3_600_000),
    resumeGraceMs: intVar(env, 'PARLEY_RESUME_GRACE_MS', 20_000, 0, 600_000),
    discoveryTimeoutMs: intVar(env, 'PARLEY_DISCOVERY_TIMEOUT_MS', 5_000, 100, 120_000),
    cookieSecure: boolVar(env, 'PARLEY_COOKIE_SECURE', false),
    maxBodyBytes: intVar(env, 'PARLEY_MAX_BODY_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    replyRetainMs: intVar(env, 'PARLEY_REPLY_RETAIN_MS', 60_000, 0, 3_600_000),
    replyBufferBytes: intVar(env, 'PARLEY_REPLY_BUFFER_MB', 64, 1, 65_536) * 1024 * 1024,
    titleModel: env.PARLEY_TITLE_MODEL?.trim() || null,
    upstreams,
    guards: loadGuards(env, sessionIdleMs),
    sessionIdleMs,
    sessionSweepMs: intVar(env, 'PARLEY_SESSION_SWEEP_MS', 10 * 60_000, 1_000, 24 * 3_600_000),
    media: loadMediaConfig(env),
    clientTimeoutMs: intVar(env, 'PARLEY_CLIENT_TIMEOUT_MS', 120_000, 100, 3_600_000),
    money: loadMoneyConfig(env),
    visionModel: env.PARLEY_VISION_MODEL?.trim() || null,
  };
}

const DAY_MS = 24 * 3_600_000;

function originList(env: Env, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map((s) => {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new ConfigError(`${name} must list origins like http://localhost:5173, got '${s}'`);
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== s.replace(/\/+$/, '')) {
      throw new ConfigError(`${name} must list bare origins (scheme://host[:port]), got '${s}'`);
    }
    return u.origin;
  });
}

/** PARLEY_PUBLIC_URL's origin: the page's origin behind a proxy that ends TLS (guards/cross-site.ts). */
function publicOrigin(env: Env): string[] {
  const raw = env.PARLEY_PUBLIC_URL?.trim();
  if (!raw) return [];
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? [u.origin] : [];
  } catch {
    return []; // payments/config.ts reports a malformed PARLEY_PUBLIC_URL
  }
}

function loadGuards(env: Env, sessionIdleMs: number): GuardConfig {
  const header = env.PARLEY_TRUSTED_PROXY_HEADER?.trim() || null;
  if (header !== null && !/^[A-Za-z0-9-]{1,100}$/.test(header)) {
    throw new ConfigError(`PARLEY_TRUSTED_PROXY_HEADER must be a header name like X-Forwarded-For, got '${header}'`);
  }
  const touch = intVar(env, 'PARLEY_SESSION_TOUCH_MS', 10 * 60_000, 0, DAY_MS);
  return {
    trustedProxyHeader: header === null ? null : header.toLowerCase(),
    allowedOrigins: [...originList(env, 'PARLEY_ALLOWED_ORIGINS'), ...publicOrigin(env)],
    sessionRate: {
      burst: intVar(env, 'PARLEY_SESSION_RATE_BURST', 20, 1, 1_000_000),
      perMinute: intVar(env, 'PARLEY_SESSION_RATE_PER_MIN', 10, 0, 60_000_000),
    },
    costlyRate: {
      burst: intVar(env, 'PARLEY_COSTLY_RATE_BURST', 60, 1, 1_000_000),
      perMinute: intVar(env, 'PARLEY_COSTLY_RATE_PER_MIN', 120, 0, 60_000_000),
    },
    // A session is re-checked at least twice per idle period, so the cache never outlives an expired session.
    sessionTouchMs: Math.min(touch, Math.floor(sessionIdleMs / 2)),
    adminLoopbackOnly: boolVar(env, 'PARLEY_ADMIN_LOOPBACK_ONLY', true),
  };
}
