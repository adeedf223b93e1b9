/**
 * Test helpers for the gateway: an in-process app on in-memory PGlite, configured from an env record exactly as
 * the real gateway is, plus small request and stream-reading helpers.
 */
import type { Hono } from 'hono';
import { afterAll, beforeAll } from 'vitest';
import type { ErrorBody, LocalSessionResponse, StreamGptRequest } from '../../../src/protocol/api';
import { METADATA_CLOSE, METADATA_OPEN, type StreamMetadata } from '../../../src/protocol/stream';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { type Env } from '../../../src/server/env-vars';
import type { AppEnv } from '../../../src/server/http';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { loadParseConfig, loadUploadLimits } from '../../../src/server/parse/config';
import { UploadBudget } from '../../../src/server/guards/upload-budget';

export interface TestGateway {
  app: Hono<AppEnv>;
  db: Db;
  ledger: Ledger;
  catalogue: Catalogue;
  logs: string[];
  /** Builds a new app over the same database with other env (new catalogue). */
  rebuild(env: Env): Promise<TestGateway>;
  close(): Promise<void>;
}

export async function buildApp(db: Db, env: Env): Promise<TestGateway> {
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', ...env });
  const logs: string[] = [];
  const log = (l: string): void => {
    logs.push(l);
  };
  const catalogue = await Catalogue.create(config.upstreams, {
    offlineTokenDelayMs: config.offlineTokenDelayMs,
    discoveryTimeoutMs: config.discoveryTimeoutMs,
    log,
  });
  const ledger = new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
  const closers: (() => Promise<void>)[] = [];
  const app = createApp({
    db,
    catalogue,
    ledger,
    settings: { stallMs: config.stallMs, resumeGraceMs: config.resumeGraceMs, cookieSecure: config.cookieSecure, maxBodyBytes: config.maxBodyBytes, guards: config.guards, visionModel: config.visionModel },
    log,
    parse: loadParseConfig(env),
    uploads: new UploadBudget(loadUploadLimits(env)),
    onClose: (fn) => closers.push(fn),
  });
  return {
    app,
    db,
    ledger,
    catalogue,
    logs,
    rebuild: (next) => buildApp(db, next),
    close: async () => {
      await Promise.all(closers.map((fn) => fn()));
      await db.close();
    },
  };
}

/**
 * A fresh in-memory PGlite for the tests of this file: opened before them (slow on a loaded machine, hence the
 * hook's time) and closed after. Call at the top of a test file; read the database with the returned function.
 */
export function memoryDatabase(): () => Db {
  let db: Db | null = null;
  beforeAll(async () => {
    db = await openDatabase({ kind: 'memory' });
  });
  afterAll(async () => {
    await db?.close();
  });
  return () => {
    if (db === null) throw new Error('the database opens in beforeAll');
    return db;
  };
}

/** A gateway app over a fresh in-memory PGlite. */
export async function testGateway(env: Env = {}): Promise<TestGateway> {
  const db = await openDatabase({ kind: 'memory' });
  return buildApp(db, env);
}

export interface TestSession {
  cookie: string;
  data: LocalSessionResponse['data'];
}

/** GET /auth/local-session without a cookie: a new session and its cookie header value (name=value). */
export async function newSession(app: Hono<AppEnv>): Promise<TestSession> {
  const res = await app.request('/auth/local-session');
  if (res.status !== 200) throw new Error(`local-session: ${res.status}`);
  const set = res.headers.get('set-cookie') ?? '';
  const cookie = set.split(';')[0] ?? '';
  const body = (await res.json()) as LocalSessionResponse;
  return { cookie, data: body.data };
}

export async function getSession(app: Hono<AppEnv>, cookie: string): Promise<LocalSessionResponse['data']> {
  const res = await app.request('/auth/local-session', { headers: { cookie } });
  return ((await res.json()) as LocalSessionResponse).data;
}

export function chatBody(model: string, text: string, extra: Partial<StreamGptRequest> = {}): StreamGptRequest {
  return { model, messages: [{ role: 'user', content: text }], conversationUUID: 'conv-1', ...extra };
}

export function postStream(app: Hono<AppEnv>, cookie: string, body: unknown, init: { raw?: boolean } = {}): Promise<Response> {
  return Promise.resolve(
    app.request('/api/stream-gpt', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: init.raw ? (body as string) : JSON.stringify(body),
    }),
  );
}

export interface ParsedStream {
  /** Everything before the metadata tag, framing included. */
  body: string;
  meta: StreamMetadata;
  raw: string;
}

/** Reads a stream-gpt body to the end and splits off the metadata tag (which must be last). */
export async function readStream(res: Response): Promise<ParsedStream> {
  return splitStream(await res.text());
}

/** Splits a whole stream-gpt body into the reply and its metadata tag (which must be last). */
export function splitStream(raw: string): ParsedStream {
  const at = raw.lastIndexOf(METADATA_OPEN);
  if (at === -1 || !raw.endsWith(METADATA_CLOSE)) throw new Error(`no trailing metadata tag in: ${raw.slice(-200)}`);
  const meta = JSON.parse(raw.slice(at + METADATA_OPEN.length, raw.length - METADATA_CLOSE.length)) as StreamMetadata;
  return { body: raw.slice(0, at), meta, raw };
}

export async function errorBody(res: Response): Promise<ErrorBody> {
  return (await res.json()) as ErrorBody;
}
