/** Small HTTP helpers for the payment providers: a JSON call with a timeout, and HMAC checks in constant time. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ProviderError } from './types';

const TIMEOUT_MS = 15_000;

export async function callJson(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new ProviderError(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) throw new ProviderError(`${what}: HTTP ${res.status} ${text.slice(0, 200)}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProviderError(`${what}: not a JSON object`);
  return body as Record<string, unknown>;
}

export function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Compares two hex digests in constant time (false on any length or format mismatch). */
export function sameHex(a: string, b: string): boolean {
  if (!/^[0-9a-f]+$/i.test(a) || !/^[0-9a-f]+$/i.test(b) || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a.toLowerCase(), 'hex'), Buffer.from(b.toLowerCase(), 'hex'));
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= 500 ? v : undefined);
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
