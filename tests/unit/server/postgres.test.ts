/**
 * The same ledger rules against a real Postgres server, where concurrent charges really run in parallel
 * (PGlite serialises them). The test starts a throwaway server (./pg-server.ts), or uses
 * PARLEY_TEST_DATABASE_URL when set (a server it may create and drop a database on).
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/server/db/migrations';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { createSession } from '../../../src/server/sessions/store';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { startTempPostgres, type TempPostgres } from './pg-server';
import { buildApp, chatBody, getSession, newSession, postStream, readStream, type TestGateway } from './helpers';
import { parallelPaidRequests } from './money-scenarios';

describe('Postgres (DATABASE_URL)', () => {
  let server: TempPostgres | null = null;
  let adminUrl: string;
  let db: Db;
  let ledger: Ledger;
  let dbName: string;
  let url: string;
  let up: FakeUpstream;

  beforeAll(async () => {
    if (process.env.PARLEY_TEST_DATABASE_URL) adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
    else {
      server = await startTempPostgres();
      adminUrl = server.url;
    }
    dbName = `parley_test_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    url = u.toString();
    db = await openDatabase({ kind: 'postgres', url });
    ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
    up = await startFakeUpstream(textReply('pg reply', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
  });
  afterAll(async () => {
    await up?.close();
    await db?.close();
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.end();
    await server?.stop();
  });

  it('migrations are tracked and a second open applies nothing', async () => {
    const again = await openDatabase({ kind: 'postgres', url });
    const rows = await again.query<{ version: number }>('SELECT version FROM schema_migrations');
    expect(rows.map((r) => Number(r.version)).sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.id));
    await again.close();
  });

  it('100 concurrent charges in parallel transactions: never below zero, duplicates once', async () => {
    const { session } = await createSession(db);
    await ledger.credit(session.id, { key: `seed:${session.id}`, usdMicro: 1_000_000n });
    const amounts = Array.from({ length: 100 }, (_, i) => 10_000n + BigInt(i) * 373n);
    const results = await Promise.all([
      ...amounts.map((usdMicro, i) => ledger.charge(session.id, { key: `pg:${session.id}:${i}`, usdMicro })),
      ...Array.from({ length: 20 }, (_, j) => ledger.charge(session.id, { key: `pg:${session.id}:${j * 5}`, usdMicro: amounts[j * 5] as bigint })),
    ]);
    const firsts = results.filter((r) => !r.duplicate);
    expect(firsts).toHaveLength(100);
    const charged = firsts.filter((r) => r.status === 'applied').reduce((s, r) => s + r.chargedUsdMicro, 0n);
    const bal = await ledger.balance(session.id);
    expect(bal.usdMicro).toBe(1_000_000n - charged);
    expect(bal.usdMicro >= 0n).toBe(true);
    const rows = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [session.id]);
    expect(rows[0]?.n).toBe('100');
  });

  it('streams and charges through the app on Postgres', async () => {
    const gw = await buildApp(db, {
      PARLEY_UPSTREAM_URL: up.url,
      PARLEY_UPSTREAM_MODELS: 'paid-model',
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'paid-model': { input: '1.5', output: '3' } }),
    });
    const s = await newSession(gw.app);
    await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
    const { body, meta } = await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi', { requestId: 'req-pg-00001' })));
    expect(body).toBe('pg reply');
    expect(meta.cost).toBe(0.0075);
    await readStream(await postStream(gw.app, s.cookie, chatBody('paid-model', 'hi', { requestId: 'req-pg-00001' })));
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('0.992500');
    expect(data.numReplies).toBe(1);
  });

  describe('holds and request binding, with transactions really in parallel', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await buildApp(db, {
        PARLEY_UPSTREAM_URL: up.url,
        PARLEY_UPSTREAM_MODELS: 'paid-model',
        PARLEY_UPSTREAM_PRICING: JSON.stringify({ 'paid-model': { input: '1.5', output: '3' } }),
        PARLEY_STALL_MS: '10000',
      });
    });

    it('$1 and 50 parallel paid requests: no reply unpaid, balance change = sum of charges, never negative', async () => {
      up.setScript(textReply('a paid answer in words', { usage: { prompt_tokens: 1000, completion_tokens: 40_000 }, delayMs: 40 }));
      const s = await newSession(gw.app);
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
      const r = await parallelPaidRequests({
        app: gw.app, db, ledger: gw.ledger, up, cookie: s.cookie, sessionId: s.data.id,
        model: 'paid-model', count: 50, maxTokens: 50_000, content: 'hi', tag: 'pg-dollar',
      });
      expect(r.refused).toBeGreaterThan(0);
    });

    it('$0.000011 and 50 parallel slow paid requests: one reply, paid', async () => {
      // One token: an upstream that honours max_tokens (one past it would be cut, reply-budget.test.ts).
      up.setScript(textReply('tiny', { usage: { prompt_tokens: 1, completion_tokens: 1 }, delayMs: 100 }));
      const s = await newSession(gw.app);
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 11n });
      const r = await parallelPaidRequests({
        app: gw.app, db, ledger: gw.ledger, up, cookie: s.cookie, sessionId: s.data.id,
        model: 'paid-model', count: 50, maxTokens: 1, content: 'hi', tag: 'pg-tiny',
      });
      expect(r.delivered).toBe(1);
      expect(r.chargedMicro).toBe(5n);
    });

    it('parallel requests with one requestId start one upstream generation', async () => {
      up.setScript(textReply('only once', { usage: { prompt_tokens: 1000, completion_tokens: 2000 }, delayMs: 30 }));
      const s = await newSession(gw.app);
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
      const before = up.requests.length;
      const body = chatBody('paid-model', 'hi', { requestId: 'req-pg-parallel-1' });
      const all = await Promise.all(Array.from({ length: 8 }, () => postStream(gw.app, s.cookie, body)));
      for (const res of all) expect((await readStream(res)).body).toBe('only once');
      await up.settled();
      expect(up.requests.length - before).toBe(1);
      expect((await getSession(gw.app, s.cookie)).usd_balance).toBe('0.992500');
    });

    it('an expired hold of a dead gateway is swept back, by one sweeper when two race', async () => {
      const s = await newSession(gw.app);
      await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 100_000n });
      for (let i = 0; i < 20; i++) await ledger.reserve(s.data.id, { key: `pg-dead:${s.data.id}:${i}`, maxUsdMicro: 5_000n, ttlMs: 0 });
      expect((await ledger.balance(s.data.id)).usdMicro).toBe(0n);
      const [a, b] = await Promise.all([ledger.sweepExpiredHolds(), ledger.sweepExpiredHolds()]);
      expect((a ?? 0) + (b ?? 0)).toBeGreaterThanOrEqual(20);
      expect((await ledger.balance(s.data.id)).usdMicro).toBe(100_000n);
    });
  });
});
