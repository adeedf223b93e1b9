/**
 * URLs a provider's answer names (a job's status URL, a finished video, an image). An answer is data from another
 * system, so the address it names is not trusted (docs/gateway.md "URLs in provider answers"):
 *
 *  - URLs the provider's key is sent to (a queue's status and result URLs) must be on the provider's configured
 *    origin (`onProviderOrigin`); anything else falls back to the URLs the gateway builds itself.
 *  - A file (`fetchProviderFile`) on the provider's configured origin is read as is (the operator chose that
 *    address, which may well be a local server). A file anywhere else must be https and pass the scraper's SSRF
 *    guard (src/server/net/ssrf.ts): every address its host resolves to is public, and the connection goes to
 *    the vetted address itself (no DNS-rebinding window), with no key, no redirect followed and at most `maxBytes`
 *    read. So a provider's answer cannot make the gateway fetch a private, loopback or link-local address (cloud
 *    metadata, a database, the admin port).
 */
import https from 'node:https';
import { pinnedLookup } from '../net/fetch';
import { checkUrlForm, ScrapeRefusal, vetHost, type ScrapeTestAllowance } from '../net/ssrf';

/** A file, or why not: `status` the HTTP status it answered; `unreachable` when it could not be reached (try later). */
export type ProviderFile = { ok: true; bytes: Uint8Array } | { ok: false; status: number | null; message: string; unreachable?: true };

/** The URL resolved against `baseUrl` when it is on the provider's own origin, else null. */
export function onProviderOrigin(raw: string, baseUrl: string): string | null {
  try {
    const u = new URL(raw, baseUrl);
    return u.origin === new URL(baseUrl).origin ? u.toString() : null;
  } catch {
    return null;
  }
}

export interface ProviderFileOptions {
  signal: AbortSignal;
  maxBytes: number;
  /** Tests only: the SSRF guard's resolver and allowance (as the scraper's). */
  test?: ScrapeTestAllowance;
}

/** Reads a body as bytes, refusing it past `maxBytes`. */
async function readBounded(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.byteLength;
    if (size > maxBytes) return null;
    chunks.push(c);
  }
  return new Uint8Array(Buffer.concat(chunks, size));
}

const tooLarge = (maxBytes: number): ProviderFile => ({ ok: false, status: null, message: `The file is larger than the gateway accepts (${maxBytes} bytes)` });

/** Fetches a file a provider's answer names (see the file comment). Never throws. */
export async function fetchProviderFile(raw: string, baseUrl: string, options: ProviderFileOptions): Promise<ProviderFile> {
  const own = onProviderOrigin(raw, baseUrl);
  try {
    if (own !== null) {
      const res = await fetch(own, { redirect: 'error', signal: options.signal });
      if (!res.ok || !res.body) return { ok: false, status: res.status, message: `The file answered HTTP ${res.status}` };
      const bytes = await readBounded(res.body as unknown as AsyncIterable<Uint8Array>, options.maxBytes);
      return bytes ? { ok: true, bytes } : tooLarge(options.maxBytes);
    }
    const url = checkUrlForm(raw);
    if (url.protocol !== 'https:') return { ok: false, status: null, message: 'A file off the provider\'s own address must be https' };
    const vetted = await vetHost(url, options.test);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = https.request(
        { host, port: url.port === '' ? undefined : Number(url.port), path: `${url.pathname}${url.search}`, method: 'GET', lookup: pinnedLookup(vetted), agent: false, signal: options.signal },
        resolve,
      );
      req.on('error', reject);
      req.end();
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.destroy();
      return { ok: false, status, message: `The file answered HTTP ${status}` };
    }
    try {
      const bytes = await readBounded(response, options.maxBytes);
      return bytes ? { ok: true, bytes } : tooLarge(options.maxBytes);
    } finally {
      response.destroy();
    }
  } catch (e) {
    if (e instanceof ScrapeRefusal) return { ok: false, status: null, message: `The provider named an address the gateway does not fetch: ${e.message}` };
    return { ok: false, status: null, message: `The file could not be reached: ${e instanceof Error ? e.message : String(e)}`, unreachable: true };
  }
}
