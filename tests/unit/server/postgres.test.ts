/**
 * The same ledger rules against a real Postgres server, where concurrent charges really run in parallel
 * (PGlite serialises them). The test starts a throwaway server (./pg-server.ts), or uses
 * PARLEY_TEST_DATABASE_URL when set (a server it may create and drop a database on).
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/ledger/ledger';
import { createSession } from '../../../src/server/sessions/store';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { startTempPostgres, type TempPostgres } from './pg-server';
import { buildApp, chatBody, getSession, newSession, postStream, readStream } from './helpers';

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
  }, 60_000);
  afterAll(async () => {
    await up?.close();
    await db?.close();
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.end();
    await server?.stop();
  }, 60_000);

  it('migrations are tracked and a second open applies nothing', async () => {
    const again = await openDatabase({ kind: 'postgres', url });
    const rows = await again.query<{ version: number }>('SELECT version FROM schema_migrations');
    expect(rows.map((r) => Number(r.version))).toEqual([1]);
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
});
