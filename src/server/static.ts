/**
 * Serves the built client (vite build -> dist/client): files as they are, and index.html for the app's routes
 * (/, /conversation/*, /wallet and any other extension-less path outside /api, /auth and /admin). When the build
 * is missing, a short plain-text note says how to build it.
 *
 * Caching: files under /assets/ carry a content hash in their names (Vite) and are immutable for a year;
 * everything else (index.html included) is `no-cache` with an ETag, so a new build is picked up at once.
 */
import { createReadStream, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { Context, MiddlewareHandler } from 'hono';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.pdf': 'application/pdf',
};

export function contentTypeFor(path: string): string {
  return MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A Vite-hashed asset: under /assets/, or a name like index-BX3kd9aQ.js. */
export function isHashedAsset(urlPath: string): boolean {
  return urlPath.startsWith('/assets/') || /[.-][A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(urlPath);
}

const API_PREFIXES = ['/api/', '/auth/', '/admin/'];

function isAppRoute(urlPath: string): boolean {
  if (API_PREFIXES.some((p) => urlPath.startsWith(p)) || urlPath === '/api' || urlPath === '/auth' || urlPath === '/admin') return false;
  return extname(urlPath) === '';
}

export const MISSING_CLIENT_NOTE =
  'Parley gateway is running, but the web client is not built.\n' +
  'Run `npm run build` (vite build -> dist/client) and reload, or use `npm start`, which builds first.\n';

async function fileStat(path: string): Promise<Stats | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/**
 * Content-Security-Policy of the app: only this origin's scripts, workers, fonts and connections; no inline or
 * injected script, no plugins; no framing of the app, and only same-origin frames in it (the HTML preview, which
 * is sandboxed to an opaque origin by its own policy). Model output and uploads are rendered as data, and even if markup
 * slipped through, no script from it could run in the app's origin. Inline style attributes stay allowed (React
 * and KaTeX set them). Images: this origin, data: and blob: (generated and attached media).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  // Only the code viewer's HTML preview (/preview/html, its own sandboxing policy: preview/route.ts).
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

function sendFile(c: Context, path: string, st: Stats, cacheControl: string, csp: string = CONTENT_SECURITY_POLICY): Response {
  const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  const headers: Record<string, string> = {
    'Content-Type': contentTypeFor(path),
    'Cache-Control': cacheControl,
    ETag: etag,
    'Last-Modified': st.mtime.toUTCString(),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
  if (path.endsWith('.html')) headers['Content-Security-Policy'] = csp;
  const inm = c.req.header('if-none-match');
  if (inm !== undefined && inm.split(',').some((t) => t.trim() === etag)) {
    return new Response(null, { status: 304, headers });
  }
  headers['Content-Length'] = String(st.size);
  if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers });
  const body = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
  return new Response(body, { status: 200, headers });
}

/** GET/HEAD middleware serving `clientDir`; falls through (next) for anything it does not own. */
export function serveClient(clientDir: string, opts: { connectSrc?: readonly string[] } = {}): MiddlewareHandler {
  const root = resolve(clientDir);
  // The nano deposit websockets the engine opens (PARLEY_NANO_WS_URLS) are the only other hosts it may reach.
  const extra = (opts.connectSrc ?? []).filter((u) => /^wss?:\/\/[A-Za-z0-9.:[\]-]+(\/[^\s;,']*)?$/.test(u));
  const csp = extra.length === 0 ? CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY.replace("connect-src 'self'", `connect-src 'self' ${extra.join(' ')}`);
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    let urlPath: string;
    try {
      urlPath = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return c.text('Bad path', 400);
    }
    if (urlPath.includes('\0')) return c.text('Bad path', 400);
    if (API_PREFIXES.some((p) => urlPath.startsWith(p))) return next();

    if (urlPath !== '/' && !urlPath.endsWith('/')) {
      const file = resolve(join(root, urlPath));
      if (file.startsWith(root + sep)) {
        const st = await fileStat(file);
        if (st) return sendFile(c, file, st, isHashedAsset(urlPath) ? IMMUTABLE : 'no-cache', csp);
      }
    }
    if (isAppRoute(urlPath)) {
      const index = join(root, 'index.html');
      const st = await fileStat(index);
      if (st) return sendFile(c, index, st, 'no-cache', csp);
      c.header('Cache-Control', 'no-store');
      return c.text(MISSING_CLIENT_NOTE, 200);
    }
    return next();
  };
}
