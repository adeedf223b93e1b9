/**
 * The scraper's fetcher: one page, behind the SSRF guard (./ssrf.ts).
 *
 *  - Each hop's URL is checked (http/https only) and its host resolved and vetted; the connection goes to the
 *    vetted address itself: node:http is given a lookup that returns that address, so the name is never resolved
 *    again between the check and the connect (no DNS-rebinding window). TLS still verifies the certificate for
 *    the host name (SNI and identity check use the name, not the address).
 *  - Redirects (301, 302, 303, 307, 308) are followed by hand, at most MAX_REDIRECTS, each hop checked again.
 *  - Only HTML, plain text and PDF bodies are read. At most MAX_BYTES are read (after decompression, so a
 *    compressed bomb stops at the same cap): HTML and text past it are cut there and marked truncated; a PDF past
 *    it is refused (a cut PDF cannot be read).
 *  - Time caps: HEADERS_TIMEOUT_MS for the answer's headers, TOTAL_TIMEOUT_MS for the whole page, redirects
 *    included. The caller's signal (the client went away) aborts too.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { checkUrlForm, vetHost, type ResolvedAddress, type ScrapeTestAllowance } from './ssrf';

export const MAX_REDIRECTS = 5;
/** 5 MB: the most of a page's (decompressed) body that is read. */
export const MAX_BYTES = 5 * 1024 * 1024;
export const HEADERS_TIMEOUT_MS = 10_000;
export const TOTAL_TIMEOUT_MS = 20_000;

export type PageKind = 'html' | 'text' | 'pdf';

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  kind: PageKind;
  /** The charset named by Content-Type, if any. */
  charset: string | null;
  body: Buffer;
  /** The body was longer than MAX_BYTES and was cut there. */
  truncated: boolean;
}

export type FetchFailureCode =
  | 'BAD_URL'
  | 'SCHEME_NOT_ALLOWED'
  | 'PRIVATE_ADDRESS'
  | 'DNS_FAILED'
  | 'TOO_MANY_REDIRECTS'
  | 'HTTP_ERROR'
  | 'UNSUPPORTED_CONTENT'
  | 'TOO_LARGE'
  | 'TIMEOUT'
  | 'FETCH_FAILED';

export class FetchFailure extends Error {
  override name = 'FetchFailure';
  constructor(
    readonly code: FetchFailureCode,
    message: string,
  ) {
    super(message);
  }
}

const USER_AGENT = 'ParleyScraper/1.0 (+reads a page a user asked for)';

export function kindOf(contentType: string | undefined): { kind: PageKind; charset: string | null } | null {
  if (!contentType) return null;
  const [type = '', ...params] = contentType.toLowerCase().split(';');
  const mime = type.trim();
  const charsetParam = params.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  const charset = charsetParam ? charsetParam.slice('charset='.length).replace(/"/g, '').trim() || null : null;
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return { kind: 'html', charset };
  if (mime === 'text/plain' || mime === 'text/markdown') return { kind: 'text', charset };
  if (mime === 'application/pdf') return { kind: 'pdf', charset: null };
  return null;
}

/** A lookup that answers every query with the vetted address (whatever name is asked, nothing is resolved). */
export function pinnedLookup(vetted: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: vetted.address, family: vetted.family }]);
    else callback(null, vetted.address, vetted.family);
  }) as LookupFunction;
}

interface Hop {
  status: number;
  location: string | undefined;
  response: http.IncomingMessage;
}

function requestOnce(url: URL, vetted: ResolvedAddress, signal: AbortSignal, headersMs: number): Promise<Hop> {
  const mod = url.protocol === 'https:' ? https : http;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return new Promise<Hop>((resolve, reject) => {
    const req = mod.request(
      {
        host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        lookup: pinnedLookup(vetted),
        agent: false,
        signal,
        headers: {
          'User-Agent': USER_AGENT,
          Accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8',
          'Accept-Encoding': 'gzip, deflate, br',
          'Accept-Language': 'en;q=0.9, *;q=0.5',
        },
      },
      (response) => {
        clearTimeout(headersTimer);
        resolve({ status: response.statusCode ?? 0, location: response.headers.location, response });
      },
    );
    const headersTimer = setTimeout(() => req.destroy(new FetchFailure('TIMEOUT', 'The page took too long to answer')), headersMs);
    req.on('error', (e) => {
      clearTimeout(headersTimer);
      reject(e);
    });
    req.end();
  });
}

function decoderFor(encoding: string | undefined): Transform | null | 'unknown' {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === '' || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return createGunzip();
  if (e === 'deflate') return createInflate();
  if (e === 'br') return createBrotliDecompress();
  return 'unknown';
}

/** Reads at most `cap` bytes of the (decoded) body, then stops reading and drops the connection. */
async function readCapped(response: http.IncomingMessage, cap: number): Promise<{ body: Buffer; truncated: boolean }> {
  const decoder = decoderFor(response.headers['content-encoding']);
  if (decoder === 'unknown') {
    response.destroy();
    throw new FetchFailure('UNSUPPORTED_CONTENT', `The page uses an unknown content encoding (${String(response.headers['content-encoding'])})`);
  }
  const source = decoder ? response.pipe(decoder) : response;
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const room = cap - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = cap;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    response.destroy();
    decoder?.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

function failureOf(e: unknown, signal: AbortSignal): FetchFailure {
  if (e instanceof FetchFailure) return e;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof FetchFailure) return reason;
    return new FetchFailure('TIMEOUT', 'The page took too long to load');
  }
  const code = (e as { code?: string }).code;
  if (code === 'ECONNREFUSED') return new FetchFailure('FETCH_FAILED', 'The site refused the connection');
  if (code === 'ECONNRESET') return new FetchFailure('FETCH_FAILED', 'The site closed the connection');
  if (typeof code === 'string' && code.startsWith('ERR_TLS') || code === 'CERT_HAS_EXPIRED' || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') {
    return new FetchFailure('FETCH_FAILED', 'The site\'s certificate could not be verified');
  }
  return new FetchFailure('FETCH_FAILED', `The page could not be loaded${code ? ` (${code})` : ''}`);
}

/** Fetches one page behind the guard. Throws a FetchFailure (or a ScrapeRefusal from the guard). */
export async function fetchPage(raw: string, options: { signal?: AbortSignal; test?: ScrapeTestAllowance } = {}): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(options.test?.timeouts?.totalMs ?? TOTAL_TIMEOUT_MS);
  const headersMs = options.test?.timeouts?.headersMs ?? HEADERS_TIMEOUT_MS;
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = checkUrlForm(raw);
  for (let hops = 0; ; hops++) {
    const vetted = await vetHost(url, options.test);
    signal.throwIfAborted();
    let hop: Hop;
    try {
      hop = await requestOnce(url, vetted, signal, headersMs);
    } catch (e) {
      throw failureOf(e, signal);
    }
    const { status, response } = hop;
    if (status >= 300 && status < 400 && status !== 304 && hop.location !== undefined) {
      response.destroy();
      if (hops >= MAX_REDIRECTS) throw new FetchFailure('TOO_MANY_REDIRECTS', `The page redirected more than ${MAX_REDIRECTS} times`);
      let next: URL;
      try {
        next = new URL(hop.location, url);
      } catch {
        throw new FetchFailure('FETCH_FAILED', 'The page redirected to an invalid address');
      }
      url = checkUrlForm(next.href);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new FetchFailure('HTTP_ERROR', `The page answered HTTP ${status}`);
    }
    const kind = kindOf(response.headers['content-type']);
    if (!kind) {
      response.destroy();
      const type = response.headers['content-type']?.split(';')[0]?.trim() || 'no content type';
      throw new FetchFailure('UNSUPPORTED_CONTENT', `Only HTML, text and PDF pages can be scraped, not ${type.slice(0, 100)}`);
    }
    let read;
    try {
      read = await readCapped(response, MAX_BYTES);
    } catch (e) {
      throw failureOf(e, signal);
    }
    if (kind.kind === 'pdf' && read.truncated) {
      throw new FetchFailure('TOO_LARGE', `The PDF is larger than ${MAX_BYTES / (1024 * 1024)} MB`);
    }
    return { url: url.href, kind: kind.kind, charset: kind.charset, body: read.body, truncated: read.truncated };
  }
}
