/**
 * Nano routes (spec 001 section 7): the price, the session's deposit address and node websockets, the deposit
 * confirmation the engine asks for, and the wallet actions. Without PARLEY_NANO_SEED only the price and convert
 * answer; the rest say nano deposits are not configured.
 */
import type { Context, Hono } from 'hono';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import type { Db } from '../db/types';
import type { Limiter } from '../guards/rate-limit';
import type { Ledger } from '../money/ledger';
import { formatUnits, parseDecimal } from '../money/amounts';
import { checkAddress } from 'nanocurrency';
import { NanoConfirmSchema, NanoConvertSchema, NanoRepresentativeSchema, NanoReturnAddressSchema, type NanoConfig } from '../../protocol/payments';
import { convertNanoToUsd, NanoError, type NanoDeposits } from './service';
import { FaucetRefused, type NanoFaucet } from './faucet';
import type { ClientAddressFn } from '../guards/client-address';
import { FAUCET_TEXT } from '../../protocol/faucet';

async function guarded<T>(c: Context<AppEnv>, run: () => Promise<T>): Promise<Response> {
  try {
    c.header('Cache-Control', 'no-store');
    return c.json(await run());
  } catch (e) {
    if (e instanceof NanoError) return jsonError(c, e.status, e.code, e.message);
    throw e;
  }
}

async function parsed<T>(c: Context<AppEnv>, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }): Promise<{ ok: true; data: T } | { ok: false; response: Response }> {
  const b = await readJson(c, 16 * 1024);
  if (!b.ok) return b;
  const r = schema.safeParse(b.value);
  if (!r.success) return { ok: false, response: jsonError(c, 400, 'BAD_REQUEST', describeIssues(r.error.issues)) };
  return { ok: true, data: r.data };
}

export function registerNanoRoutes(app: Hono<AppEnv>, db: Db, ledger: Ledger, nano: NanoDeposits | null, costly: Limiter): void {
  // Each of these asks a node's RPC: limited per client address like a reply.
  for (const path of ['/nano/confirm', '/check-receivables', '/nano/change-representative']) app.use(path, costly.middleware);

  app.get('/get-nano-price', (c) => c.json({ latestPrice: Number(formatUnits(ledger.nanoPriceUsdMicro, 6)) }));

  app.post('/nano/convert-to-usd', async (c) => {
    const p = await parsed(c, NanoConvertSchema);
    if (!p.ok) return p.response;
    const amount = p.data.amount;
    return guarded(c, async () => {
      const raw = amount === undefined ? null : parseDecimal(amount, 30);
      return { success: true, ...(await convertNanoToUsd(db, ledger, c.get('sessionId'), raw)) };
    });
  });

  // The session's nanoReturnAddress: the user's own account (the Deposit dialog's nano receiving flag). Kept even
  // without a seed: it names the user's account, not one of ours.
  app.post('/nano/return-address', async (c) => {
    const p = await parsed(c, NanoReturnAddressSchema);
    if (!p.ok) return p.response;
    const address = p.data.address;
    if (address !== null && !checkAddress(address)) return jsonError(c, 400, 'INVALID_ADDRESS', 'Not a nano address');
    await db.query('UPDATE sessions SET nano_return_address = $2 WHERE id = $1', [c.get('sessionId'), address]);
    c.header('Cache-Control', 'no-store');
    return c.json({ nanoReturnAddress: address });
  });

  const need = (c: Context<AppEnv>): Response => jsonError(c, 503, 'NANO_NOT_CONFIGURED', 'Nano deposits are not configured on this server');

  app.post('/nano/deposit-address', async (c) => {
    if (!nano) return need(c);
    return guarded(c, async () => {
      const res: NanoConfig = { address: await nano.address(c.get('sessionId')), websockets: nano.cfg.websocketUrls };
      return res;
    });
  });

  app.post('/nano/confirm', async (c) => {
    if (!nano) return need(c);
    const p = await parsed(c, NanoConfirmSchema);
    if (!p.ok) return p.response;
    const hash = p.data.hash;
    return guarded(c, () => nano.confirm(c.get('sessionId'), hash));
  });

  app.post('/check-receivables', async (c) => {
    if (!nano) return need(c);
    return guarded(c, () => nano.checkReceivables(c.get('sessionId')));
  });

  app.post('/get-representative', async (c) => {
    if (!nano) return need(c);
    return guarded(c, async () => ({ representative: await nano.representative(c.get('sessionId')) }));
  });

  app.post('/nano/change-representative', async (c) => {
    if (!nano) return need(c);
    const p = await parsed(c, NanoRepresentativeSchema);
    if (!p.ok) return p.response;
    const rep = p.data.representative;
    return guarded(c, async () => ({ success: true, ...(await nano.changeRepresentative(c.get('sessionId'), rep)) }));
  });
}

/**
 * The nano faucet (nano/faucet.ts): GET /nano/faucet -> FaucetStatus; POST /nano/faucet -> FaucetClaim, or 409 with
 * ALREADY_CLAIMED, ADDRESS_USED or FAUCET_EMPTY, 404 FAUCET_OFF, 429 past the claims per address.
 */
export function registerFaucetRoutes(app: Hono<AppEnv>, faucet: NanoFaucet, limit: Limiter, address: ClientAddressFn): void {
  app.get('/nano/faucet', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await faucet.status(c.get('sessionId')));
  });
  app.post('/nano/faucet', async (c) => {
    c.header('Cache-Control', 'no-store');
    if (!faucet.enabled) return jsonError(c, 404, 'FAUCET_OFF', FAUCET_TEXT.FAUCET_OFF);
    const refused = await limit.check(c);
    if (refused) return refused;
    try {
      // No address (no socket: an in-process request) counts as one shared address.
      return c.json(await faucet.claim(c.get('sessionId'), address(c) ?? 'unknown'));
    } catch (e) {
      if (e instanceof FaucetRefused) return jsonError(c, e.code === 'FAUCET_OFF' ? 404 : 409, e.code, FAUCET_TEXT[e.code]);
      throw e;
    }
  });
}
