/**
 * The client address a request is limited by. Without a trusted proxy it is the socket's remote address: headers
 * such as X-Forwarded-For are set by the client itself and prove nothing. With PARLEY_TRUSTED_PROXY_HEADER the
 * proxy's header is used, and only its right-most entry: the one the proxy itself appended (anything to its left
 * came from the client). In-process requests (`app.request` in tests) have no socket and no address.
 */
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppEnv } from '../http';

export type ClientAddressFn = (c: Context<AppEnv>) => string | null;

/** The socket's remote address, IPv4-mapped IPv6 written as plain IPv4; null without a socket. */
export function socketAddress(c: Context<AppEnv>): string | null {
  const raw = c.env?.incoming?.socket.remoteAddress;
  if (!raw) return null;
  return raw.startsWith('::ffff:') && raw.includes('.') ? raw.slice(7) : raw;
}

export function clientAddressResolver(trustedProxyHeader: string | null): ClientAddressFn {
  if (trustedProxyHeader === null) return socketAddress;
  return (c) => {
    const value = c.req.header(trustedProxyHeader);
    if (value === undefined) return socketAddress(c);
    const parts = value.split(',');
    const last = (parts[parts.length - 1] ?? '').trim();
    return last.length > 0 && last.length <= 100 ? last : socketAddress(c);
  };
}

/** 127.0.0.0/8 and ::1 (plain or IPv4-mapped). */
export function isLoopback(address: string): boolean {
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/**
 * The group a per-address quota counts by: an IPv4 address as it is, an IPv6 address by its /64 (one subscriber
 * line usually gets a whole /64, so a quota per /128 would be a quota per guess). Anything unparsable (a proxy
 * header's odd value) as it is.
 */
export function addressGroup(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  if (a.kind() === 'ipv4') return a.toString();
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
