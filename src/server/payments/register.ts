/**
 * The money side of the gateway in one place for app.ts and start.ts: payments, invitations, nano and recovery
 * codes, their routes, and the sweep that expires payments, asks for auto-recharges and refunds expired
 * invitations (every PARLEY_MONEY_SWEEP_MS; each step is a conditional update, so gateways sweep side by side).
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { RouteContext } from '../context';
import type { AppEnv } from '../http';
import type { Db } from '../db/types';
import type { ClientAddressFn } from '../guards/client-address';
import { createLimiter } from '../guards/rate-limit';
import { Invitations } from '../invitations/service';
import { registerInvitationRoutes } from '../invitations/routes';
import type { Ledger } from '../money/ledger';
import { registerFaucetRoutes, registerNanoRoutes } from '../nano/routes';
import { NanoDeposits } from '../nano/service';
import { NanoFaucet } from '../nano/faucet';
import { registerRecoveryRoutes } from '../sessions/recovery-routes';
import type { MoneyConfig } from './config';
import { checkRecharges } from './recharge';
import { registerPaymentRoutes } from './routes';
import { Payments } from './service';

/**
 * Spec paths outside /api that need the session, the cross-site guard and the small-body limit. The invitation
 * calls are listed one by one: '/invitations/*' would also match the Invitations page itself (GET /invitations).
 */
export const MONEY_PREFIXES = [
  '/transaction/*',
  '/invitations/create',
  '/invitations/update',
  '/invitations/redeem',
  '/invitations/delete/*',
  '/nano/*',
  '/check-receivables',
  '/get-representative',
  '/user/*',
];

export interface MoneyServices {
  cfg: MoneyConfig;
  payments: Payments;
  invitations: Invitations;
  nano: NanoDeposits | null;
  faucet: NanoFaucet;
  /** One pass of the money sweep (tests call it directly). */
  sweep(): Promise<void>;
}

export function createMoneyServices(db: Db, ledger: Ledger, cfg: MoneyConfig, log: (line: string) => void): MoneyServices {
  const payments = new Payments(db, ledger, cfg, log);
  const invitations = new Invitations(db);
  const nano = cfg.nano ? new NanoDeposits(db, ledger, cfg.nano) : null;
  return {
    cfg,
    payments,
    invitations,
    nano,
    faucet: new NanoFaucet(db, ledger, cfg.faucetRaw),
    async sweep() {
      await payments.sweep();
      await checkRecharges(payments, db, log);
      while ((await invitations.expire(100)) === 100);
    },
  };
}

/** Registers the money routes; returns what the gateway's close must run (the guess limiter's leases and sweep). */
export function registerMoneyRoutes(
  app: Hono<AppEnv>,
  ctx: RouteContext,
  money: MoneyServices,
  address: ClientAddressFn,
  requireSession: MiddlewareHandler<AppEnv>,
): { close(): Promise<void> } {
  for (const prefix of MONEY_PREFIXES) app.use(prefix, requireSession);
  // Recovery codes and invitation codes share one limit on guesses per address.
  const guessLimit = createLimiter(ctx.db, 'guess', money.cfg.guessRate, address, 'attempts', ctx.log);
  registerPaymentRoutes(app, money.payments, ctx.costlyLimit);
  registerInvitationRoutes(app, money.invitations, guessLimit);
  registerNanoRoutes(app, ctx.db, ctx.ledger, money.nano, ctx.costlyLimit);
  const faucetLimit = createLimiter(ctx.db, 'faucet', money.cfg.faucetRate, address, 'claims', ctx.log);
  registerFaucetRoutes(app, money.faucet, faucetLimit, address);
  registerRecoveryRoutes(app, ctx, money.cfg.recoverySecret, guessLimit);
  return { close: async () => void (await Promise.all([guessLimit.close(), faucetLimit.close()])) };
}

/** Runs the sweep at startup and then every cfg.sweepMs until stopped. */
export function startMoneySweeper(money: MoneyServices, log: (line: string) => void): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = (): void => {
    if (running || stopped) return;
    running = money
      .sweep()
      .catch((e: unknown) => log(`money sweep failed: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        running = null;
      });
  };
  tick();
  const timer = setInterval(tick, money.cfg.sweepMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
