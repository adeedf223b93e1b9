/**
 * Where the admin routes answer. By default (PARLEY_ADMIN_LOOPBACK_ONLY=true) only on a loopback connection that
 * did not come through a proxy: a reverse proxy on the same host also connects from 127.0.0.1, so a request that
 * carries a forwarding header is refused too. The admin token is checked after this (admin/routes.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { jsonError, type AppEnv } from '../http';
import { isLoopback, socketAddress } from './client-address';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-host'];

export function adminAccessGuard(loopbackOnly: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (loopbackOnly) {
      const addr = socketAddress(c);
      // In-process requests (no socket) cannot come from the network.
      const proxied = FORWARDING_HEADERS.some((h) => c.req.header(h) !== undefined);
      if ((c.env?.incoming !== undefined && (addr === null || !isLoopback(addr))) || proxied) {
        return jsonError(c, 403, 'ADMIN_LOOPBACK_ONLY', 'The admin routes answer only direct loopback connections (PARLEY_ADMIN_LOOPBACK_ONLY)');
      }
    }
    return next();
  };
}
