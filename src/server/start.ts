/**
 * startGateway: open the database, build the catalogue and listen, all in process. Used by main.ts
 * (`npm run serve`), by e2e tests and by the relay benchmark.
 *
 *   const gw = await startGateway({ port: 0, memory: true, env: { PARLEY_UPSTREAM_URL: fake.url } });
 *   await fetch(`${gw.url}/auth/local-session`); ...; await gw.close();
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { createApp } from './app';
import { loadConsentConfig } from './consent/config';
import { loadConfig, type GatewayConfig } from './config';
import { type Env } from './env-vars';
import type { AppEnv } from './http';
import { openDatabase, type DbTarget } from './db/open';
import type { Db } from './db/types';
import { Ledger } from './money/ledger';
import { startHoldSweeper } from './money/sweeper';
import { Catalogue } from './chat/catalogue';
import { MediaCatalogue } from './media/catalogue';
import { startMediaServices } from './media/register';
import { startSessionSweeper } from './sessions/expiry';
import { ReplyRegistry } from './chat/reply-registry';
import { PgReplyStore } from './chat/reply-store';
import { createMoneyServices, startMoneySweeper } from './payments/register';
import { decideTestPayments, paymentsBanner, pricedServices } from './payments/test-switch';
import { loadSearchConfig } from './web/search-config';
import { loadSpeechConfig } from './speech/config';
import { startSpeechServices, stopSpeechServices } from './speech/register';
import type { ScrapeTestAllowance } from './net/ssrf';
import { loadParseConfig, loadUploadLimits } from './parse/config';
import { UploadBudget } from './guards/upload-budget';

/** Rate-limit buckets untouched this long are dropped by the sweep: a day, or longer if a bucket refills slower. */
function bucketIdleMs(config: GatewayConfig): number {
  const refill = [config.guards.sessionRate, config.guards.costlyRate]
    .filter((r) => r.perMinute > 0)
    .map((r) => Math.ceil((r.burst / r.perMinute) * 60_000));
  return Math.max(24 * 3_600_000, ...refill);
}

export interface StartGatewayOptions {
  /** Port to listen on; 0 = any free port. Default: PORT, else 8787. */
  port?: number;
  /** Default: HOST, else 127.0.0.1. */
  host?: string;
  /** Embedded PGlite in this folder (files in {dataDir}/pglite). */
  dataDir?: string;
  /** Embedded PGlite in memory: nothing is written to disk. Wins over dataDir and DATABASE_URL. */
  memory?: boolean;
  /**
   * Embedded PGlite in a thread of its own (db/pglite-thread.ts), so that no statement holds the event loop.
   * Default: on a PGlite folder yes (the deployed gateway), in memory no (tests, where the thread would run
   * initdb again for every gateway).
   */
  dbThread?: boolean;
  /** A Postgres server; wins over dataDir. */
  databaseUrl?: string;
  /** Environment overrides (PARLEY_UPSTREAM_URL, PARLEY_STALL_MS, ...), applied over process.env. */
  env?: Env;
  /** Read process.env at all (default true). Tests pass false for a reproducible setup. */
  inheritEnv?: boolean;
  /** Built client to serve; default PARLEY_CLIENT_DIR or dist/client; null = API only. */
  clientDir?: string | null;
  /** Log sink; default stderr. */
  log?: (line: string) => void;
  /** TEST ONLY: loopback hosts the scraper may reach (src/server/net/ssrf.ts). No environment variable sets it. */
  scrapeTest?: ScrapeTestAllowance;
}

export interface RunningGateway {
  /** Base URL, e.g. http://127.0.0.1:54321 (no trailing slash). */
  url: string;
  port: number;
  host: string;
  app: Hono<AppEnv>;
  db: Db;
  ledger: Ledger;
  catalogue: Catalogue;
  config: GatewayConfig;
  /** Stops listening, drops open connections, closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/** Written to {dataDir}/gateway.json while a gateway owns an embedded database folder. */
export interface GatewayLockFile {
  pid: number;
  url: string;
  adminToken: string;
}

export function lockFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'gateway.json');
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock of a live gateway on this data folder, or null. A stale lock (dead pid) is ignored. */
export function readLiveLock(dataDir: string): GatewayLockFile | null {
  const path = lockFilePath(dataDir);
  if (!existsSync(path)) return null;
  try {
    const lock = JSON.parse(readFileSync(path, 'utf8')) as Partial<GatewayLockFile>;
    if (typeof lock.pid !== 'number' || typeof lock.url !== 'string' || typeof lock.adminToken !== 'string') return null;
    return pidAlive(lock.pid) ? (lock as GatewayLockFile) : null;
  } catch {
    return null;
  }
}

function listen(app: Hono<AppEnv>, port: number, host: string): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }) as Server;
    // Idle keep-alive connections stay open longer than a load balancer's or a client's own idle timeout (60 s is
    // common), so the gateway is never the one closing a connection a client is about to reuse. A request's headers
    // and body must still arrive within Node's defaults (headers 60 s, whole request 300 s): a body that never
    // ends is cut off then.
    server.keepAliveTimeout = 65_000;
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      resolvePromise(server);
    });
  });
}

export async function startGateway(options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const env: Env = { ...(options.inheritEnv === false ? {} : process.env), ...options.env };
  const config = loadConfig(env);
  const search = loadSearchConfig(env);
  const speechConfig = loadSpeechConfig(env);
  const parse = loadParseConfig(env);
  const uploads = new UploadBudget(loadUploadLimits(env));
  const log = options.log ?? ((line: string) => console.error(`[gateway] ${line}`));
  const host = options.host ?? config.host;
  const port = options.port ?? config.port;

  let target: DbTarget;
  if (options.memory) target = { kind: 'memory', thread: options.dbThread ?? false };
  else if (options.databaseUrl) target = { kind: 'postgres', url: options.databaseUrl };
  else if (options.dataDir !== undefined) target = { kind: 'pglite', dataDir: options.dataDir, thread: options.dbThread ?? true };
  else if (config.databaseUrl) target = { kind: 'postgres', url: config.databaseUrl };
  else target = { kind: 'pglite', dataDir: config.dataDir, thread: options.dbThread ?? true };

  if (target.kind === 'pglite') {
    const live = readLiveLock(target.dataDir);
    if (live) {
      throw new Error(`Another gateway (pid ${live.pid}, ${live.url}) is using ${resolve(target.dataDir)}; stop it first`);
    }
  }

  const db = await openDatabase(target);
  let server: Server | null = null;
  let lockPath: string | null = null;
  let stopReplies: () => Promise<void> = () => Promise.resolve();
  let stopSweeper: () => Promise<void> = () => Promise.resolve();
  /** What the app asks to run at close, before the database closes. */
  const closers: (() => Promise<void>)[] = [];
  try {
    const mediaCatalogue = new MediaCatalogue(config.media);
    const catalogue = await Catalogue.create(config.upstreams, {
      offlineTokenDelayMs: config.offlineTokenDelayMs,
      discoveryTimeoutMs: config.discoveryTimeoutMs,
      log,
      media: mediaCatalogue,
    });
    const ledger = new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro, log });
    // Video jobs left by a gateway that stopped are picked up again (src/server/media/video-jobs.ts).
    const media = startMediaServices({ db, ledger, catalogue: mediaCatalogue, config: config.media, log });
    // Holds a dead gateway left open are given back at startup and then every minute (docs/gateway.md, "Holds").
    const sweeper = startHoldSweeper(ledger, log);
    // Idle sessions that never held money expire, at startup and then every PARLEY_SESSION_SWEEP_MS (sessions/expiry.ts).
    const sessionSweeper = startSessionSweeper(db, { idleMs: config.sessionIdleMs, everyMs: config.sessionSweepMs, bucketIdleMs: bucketIdleMs(config) }, log);
    // The test payment provider mints balance with a button: live only on purpose, or on a loopback-only gateway
    // with nothing priced (payments/test-switch.ts). Said at startup, with every live provider.
    const testPayments = decideTestPayments(config, host, pricedServices(config, speechConfig, search));
    const moneyConfig = { ...config.money, testPayments: testPayments.on };
    // Payments past 30 minutes, auto-recharges, expired invitations (payments/register.ts).
    const money = createMoneyServices(db, ledger, moneyConfig, log);
    const moneySweeper = startMoneySweeper(money, log);
    for (const line of paymentsBanner([...money.payments.providers.map((p) => p.name), ...(moneyConfig.nano ? ['nano'] : [])], testPayments, host)) log(line);
    // Text-to-speech jobs a stopped gateway left are picked up at once (speech/jobs.ts).
    const speech = startSpeechServices({ db, ledger, config: speechConfig, log });
    stopSweeper = async () => {
      await stopSpeechServices(speech);
      await media.runner.stop();
      await sweeper.stop();
      await sessionSweeper.stop();
      await moneySweeper.stop();
    };
    const adminToken = target.kind === 'pglite' ? randomBytes(32).toString('base64url') : null;
    const clientDir = options.clientDir === undefined ? config.clientDir : options.clientDir;
    const replies = new ReplyRegistry({ graceMs: config.resumeGraceMs, retainMs: config.replyRetainMs, budgetBytes: config.replyBufferBytes });
    // On Postgres, replies are shared with the other gateway processes (resume, retry and Stop through any of them).
    if (db.kind === 'postgres') {
      const store = new PgReplyStore(db, { retainMs: config.replyRetainMs, log });
      store.start((key) => replies.get(key)?.abandon());
      replies.share(store);
      stopReplies = () => store.close();
    }
    const app = createApp({
      db,
      catalogue,
      ledger,
      replies,
      settings: {
        stallMs: config.stallMs,
        cookieSecure: config.cookieSecure,
        maxBodyBytes: config.maxBodyBytes,
        resumeGraceMs: config.resumeGraceMs,
        titleModel: config.titleModel,
        guards: config.guards,
        clientTimeoutMs: config.clientTimeoutMs,
        visionModel: config.visionModel,
      },
      clientDir,
      adminToken,
      log,
      media,
      onClose: (fn) => closers.push(fn),
      money,
      web: { search, ...(options.scrapeTest ? { scrapeTest: options.scrapeTest } : {}) },
      speech,
      consent: loadConsentConfig(env),
      parse,
      warmReaders: parse.warmAtStart,
      uploads,
    });
    server = await listen(app, port, host);
    const addr = server.address() as AddressInfo;
    const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const url = `http://${urlHost === '0.0.0.0' ? '127.0.0.1' : urlHost === '[::]' ? '[::1]' : urlHost}:${addr.port}`;

    if (target.kind === 'pglite' && adminToken) {
      mkdirSync(resolve(target.dataDir), { recursive: true });
      lockPath = lockFilePath(target.dataDir);
      const lock: GatewayLockFile = { pid: process.pid, url, adminToken };
      writeFileSync(lockPath, JSON.stringify(lock), { mode: 0o600 });
    }

    let closed: Promise<void> | null = null;
    const running = server;
    const close = (): Promise<void> => {
      closed ??= (async () => {
        await new Promise<void>((r) => {
          running.close(() => r());
          running.closeAllConnections();
        });
        catalogue.close();
        replies.close();
        await stopReplies();
        await stopSweeper();
        await Promise.all(closers.map((fn) => fn()));
        await ledger.close();
        if (lockPath) rmSync(lockPath, { force: true });
        await db.close();
      })();
      return closed;
    };
    return { url, port: addr.port, host, app, db, ledger, catalogue, config: { ...config, money: moneyConfig }, close };
  } catch (e) {
    server?.close();
    if (lockPath) rmSync(lockPath, { force: true });
    await stopSweeper();
    await stopReplies();
    await db.close().catch(() => {});
    throw e;
  }
}
