/**
 * Cross-site request refusal for the JSON routes (docs/gateway.md "Security and limits"). The session cookie is
 * SameSite=Lax, which stops another site's POST from carrying it, but a sibling subdomain or another port on the
 * same host is the same *site* and gets the cookie: a text/plain form POST or no-cors fetch from there needs no
 * CORS preflight. So state-changing requests (anything but GET, HEAD, OPTIONS) must:
 * - not say Sec-Fetch-Site: cross-site or same-site (browsers set it; same-origin and none pass);
 * - when an Origin is sent, carry the gateway's own origin (the request's scheme, Host and port), PARLEY_PUBLIC_URL's
 *   origin or one of PARLEY_ALLOWED_ORIGINS;
 * - have Content-Type application/json (a cross-origin page can only send that after a CORS preflight, which the
 *   gateway never grants); POST /api/transcribe takes a recording as audio/* (not a CORS-safelisted type either, so
 *   it too needs the preflight that is never granted), and POST /api/share an event log as application/x-ndjson
 *   (the same).
 * Requests from non-browser clients (no Origin, no Sec-Fetch-Site) pass on to the session or admin token check.
 */
import type { MiddlewareHandler } from 'hono';
import { jsonError, type AppEnv } from '../http';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** audio/* (and video/webm, a MediaRecorder's type): never CORS-safelisted, so a cross-origin sender is preflighted. */
export function isAudioContentType(value: string | undefined): boolean {
  const type = (value?.split(';')[0] ?? '').trim().toLowerCase();
  return /^audio\/[a-z0-9.+-]+$/.test(type) || type === 'video/webm';
}

/** application/x-ndjson (an event log: POST /api/share), not CORS-safelisted either. */
export function isNdjsonContentType(value: string | undefined): boolean {
  return (value?.split(';')[0] ?? '').trim().toLowerCase() === 'application/x-ndjson';
}

export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json';
}

/** multipart/form-data (a file upload), accepted only on the routes named to crossSiteGuard. */
export function isMultipartContentType(value: string | undefined): boolean {
  return (value?.split(';')[0] ?? '').trim().toLowerCase() === 'multipart/form-data';
}

/**
 * Whether an Origin header is the gateway's own origin: the same scheme, host and port as the request itself (the
 * scheme the request arrived with, the Host header it names). An http:// page on the host of an https:// gateway is
 * another origin and is refused. Behind a proxy that ends TLS the request arrives as http://, so the public https://
 * origin passes only through PARLEY_PUBLIC_URL or PARLEY_ALLOWED_ORIGINS (config.ts adds both to the allowed set).
 */
export function isOwnOrigin(origin: string, requestUrl: string, hostHeader: string | undefined): boolean {
  if (origin === 'null' || hostHeader === undefined) return false;
  let sent: URL;
  let own: URL;
  try {
    sent = new URL(origin);
    own = new URL(requestUrl);
  } catch {
    return false;
  }
  return sent.protocol === own.protocol && sent.host === hostHeader.toLowerCase();
}

export function crossSiteGuard(allowedOrigins: readonly string[], multipartPaths: ReadonlySet<string> = new Set()): MiddlewareHandler<AppEnv> {
  const allowed = new Set(allowedOrigins);
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const site = c.req.header('sec-fetch-site')?.toLowerCase();
    if (site === 'cross-site' || site === 'same-site') {
      return jsonError(c, 403, 'CROSS_SITE', `Refused: a ${site} request (Sec-Fetch-Site) may not change anything here`);
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowed.has(origin) && !isOwnOrigin(origin, c.req.url, c.req.header('host'))) {
      return jsonError(c, 403, 'CROSS_SITE', `Refused: requests from the origin '${origin.slice(0, 200)}' are not allowed`);
    }
    const type = c.req.header('content-type');
    if (!isJsonContentType(type) && !(multipartPaths.has(c.req.path) && isMultipartContentType(type)) && !(c.req.path === '/api/transcribe' && isAudioContentType(type)) && !(c.req.path === '/api/share' && isNdjsonContentType(type))) {
      return jsonError(c, 415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON, sent with Content-Type: application/json');
    }
    return next();
  };
}
