/**
 * The scraper's SSRF guard (docs/gateway.md, "The SSRF rules"): which URLs may be fetched and which
 * addresses may be connected to.
 *
 *  - Only http: and https: URLs, on any port. The URL is parsed by the WHATWG parser, which already normalises
 *    every IPv4 spelling (2130706433, 0x7f.0.0.1, 0177.0.0.1, 127.1 all become 127.0.0.1) and every IPv6 one.
 *  - Every address a name resolves to (all A and AAAA answers) must be a public unicast address by ipaddr.js's
 *    range table: loopback, private, link-local, CGNAT, unique-local, multicast, unspecified, broadcast, reserved,
 *    documentation, benchmarking, NAT64, 6to4, Teredo and the rest are refused. An IPv4-mapped (::ffff:a.b.c.d),
 *    IPv4-translated or IPv4-compatible (::a.b.c.d) IPv6 address is refused whatever IPv4 address it carries.
 *  - One refused answer refuses the name: a resolver that mixes a public and a private answer does not get a
 *    second chance on the next connection.
 *
 * The fetcher then connects to the vetted address itself (./fetch.ts passes a lookup that returns it), so the name
 * is never resolved a second time between the check and the connection (no DNS-rebinding window).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (A and AAAA). Tests substitute their own. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * A test-only exception: exact (address, port) pairs the guard lets through although they are not public. Only an
 * in-process caller of startGateway / createApp can pass it (`scrapeTest` option); no environment variable or
 * configuration file reaches it.
 */
export interface ScrapeTestAllowance {
  allow?: readonly { address: string; port: number }[];
  resolver?: Resolver;
  /** Other time caps than HEADERS_TIMEOUT_MS / TOTAL_TIMEOUT_MS (./fetch.ts): shorter to see them fire, longer for a held page. */
  timeouts?: { headersMs?: number; totalMs?: number };
}

export class ScrapeRefusal extends Error {
  override name = 'ScrapeRefusal';
  constructor(
    readonly code: 'BAD_URL' | 'SCHEME_NOT_ALLOWED' | 'PRIVATE_ADDRESS' | 'DNS_FAILED',
    message: string,
  ) {
    super(message);
  }
}

/** Why an address is not public ("loopback", "private", ...), or null when it is a public unicast address. */
export function addressRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return `${range} (${v6.toIPv4Address().toString()})`;
  if (range !== 'unicast') return range;
  // ::/96 (IPv4-compatible, deprecated) and everything else under ::/8 is not routable on the internet.
  const parts = v6.parts;
  if (parts[0] === 0 && parts[1] === 0 && parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0) return 'ipv4Compatible';
  if ((parts[0] ?? 0) >> 8 === 0) return 'reserved';
  return null;
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

export function defaultPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** Parses and checks a URL's form: http or https, a host, no credentials. Throws a ScrapeRefusal. */
export function checkUrlForm(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ScrapeRefusal('BAD_URL', `Not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ScrapeRefusal('SCHEME_NOT_ALLOWED', `Only http and https pages can be scraped, not ${url.protocol.replace(/:$/, '')}:`);
  }
  if (url.hostname === '') throw new ScrapeRefusal('BAD_URL', `Not a valid URL: ${raw.slice(0, 200)}`);
  if (url.username !== '' || url.password !== '') throw new ScrapeRefusal('BAD_URL', 'URLs with a user name or password are not scraped');
  url.hash = '';
  return url;
}

function allowed(test: ScrapeTestAllowance | undefined, address: string, port: number): boolean {
  return test?.allow?.some((a) => a.address === address && a.port === port) ?? false;
}

export const PRIVATE_ADDRESS_MESSAGE = 'This address is private or local, so it cannot be scraped';

/**
 * Resolves the URL's host and vets every answer; returns the address to connect to. Throws a ScrapeRefusal for a
 * host that is or resolves to any non-public address.
 */
export async function vetHost(url: URL, test?: ScrapeTestAllowance): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const port = defaultPort(url);
  let answers: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    answers = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      answers = await (test?.resolver ?? systemResolver)(host);
    } catch {
      throw new ScrapeRefusal('DNS_FAILED', `Could not find the host ${host}`);
    }
    if (answers.length === 0) throw new ScrapeRefusal('DNS_FAILED', `Could not find the host ${host}`);
  }
  for (const a of answers) {
    const range = addressRange(a.address);
    if (range !== null && !allowed(test, a.address, port)) {
      throw new ScrapeRefusal('PRIVATE_ADDRESS', `${PRIVATE_ADDRESS_MESSAGE} (${host} is ${range})`);
    }
  }
  const first = answers[0];
  if (!first) throw new ScrapeRefusal('DNS_FAILED', `Could not find the host ${host}`);
  return first;
}
