/**
 * Test helpers for the money side: an in-process gateway whose payments, invitations, nano and recovery are
 * configured from an env record exactly as startGateway does, plus JSON request helpers with a session cookie.
 */
import type { Hono } from 'hono';
import { createApp } from '../../../../src/server/app';
import { loadConfig } from '../../../../src/server/config';
import { type Env } from '../../../../src/server/env-vars';
import type { AppEnv } from '../../../../src/server/http';
import { openDatabase } from '../../../../src/server/db/open';
import type { Db } from '../../../../src/server/db/types';
import { Ledger } from '../../../../src/server/money/ledger';
import { createMoneyServices, type MoneyServices } from '../../../../src/server/payments/register';
import { Catalogue } from '../../../../src/server/chat/catalogue';
import { newSession, type TestSession } from '../helpers';

export interface MoneyGateway {
  app: Hono<AppEnv>;
  db: Db;
  ledger: Ledger;
  money: MoneyServices;
  logs: string[];
  session(): Promise<TestSession>;
  close(): Promise<void>;
}

export async function moneyGateway(env: Env = {}, opts: { db?: Db; ledger?: (db: Db, nanoPriceUsdMicro: bigint) => Ledger } = {}): Promise<MoneyGateway> {
  const db = opts.db ?? (await openDatabase({ kind: 'memory' }));
  // The test provider is on only on purpose (payments/test-switch.ts): the tests without a real provider ask for it,
  // as an operator would.
  const real = Boolean(env.PARLEY_BTCPAY_URL || env.PARLEY_STRIPE_KEY);
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', ...(real ? {} : { PARLEY_TEST_PAYMENTS: 'true' }), ...env });
  const logs: string[] = [];
  const log = (l: string): void => {
    logs.push(l);
  };
  const catalogue = await Catalogue.create(config.upstreams, { offlineTokenDelayMs: 0, discoveryTimeoutMs: 1000, log });
  const ledger = opts.ledger ? opts.ledger(db, config.nanoPriceUsdMicro) : new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
  const money = createMoneyServices(db, ledger, config.money, log);
  const app = createApp({
    db,
    catalogue,
    ledger,
    money,
    settings: { stallMs: config.stallMs, cookieSecure: false, maxBodyBytes: config.maxBodyBytes, guards: config.guards },
    log,
  });
  return { app, db, ledger, money, logs, session: () => newSession(app), close: () => (opts.db ? Promise.resolve() : db.close()) };
}

export interface JsonAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  app: Hono<AppEnv>,
  method: string,
  path: string,
  cookie: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonAnswer<T>> {
  const h: Record<string, string> = { ...headers };
  if (cookie) h.cookie = cookie;
  // State-changing requests must say JSON even with no body (the cross-site guard), as the engine's client does.
  if (body !== undefined || method !== 'GET') h['content-type'] = 'application/json';
  const res = await app.request(path, { method, headers: h, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed as T };
}

/** Micro-dollars and raw of a session, from the database. */
export async function balanceOf(db: Db, sessionId: string): Promise<{ usd: bigint; nano: bigint }> {
  const rows = await db.query<{ usd: string; nano: string }>('SELECT usd_micro::text AS usd, nano_raw::text AS nano FROM sessions WHERE id = $1', [sessionId]);
  return { usd: BigInt(rows[0]?.usd ?? '-1'), nano: BigInt(rows[0]?.nano ?? '-1') };
}

export async function creditsOf(db: Db, sessionId: string, keyPrefix: string): Promise<number> {
  const rows = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'credit' AND idempotency_key LIKE $2`,
    [sessionId, `${keyPrefix}%`],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Amounts every money input must refuse (the list), as JSON values. */
export const BAD_AMOUNTS: unknown[] = [0, '0', '0.000', -1, '-1', Number.NaN, 'NaN', 2 ** 64, '18446744073709551616', '1e-30', 1e-30, 'abc', '', '1,5', '0x10', null, true, {}, []];
