/**
 * Rate limits and session expiry on a real PostgreSQL, where two gateway processes' statements really run in
 * parallel: two separate connection pools (as two processes have) take tokens from one bucket and sweep expired
 * sessions at the same time. Uses a throwaway server (./pg-server.ts) or PARLEY_TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { LeasedBuckets, takeToken } from '../../../src/server/guards/rate-limit';
import { Ledger } from '../../../src/server/money/ledger';
import { expireIdleSessions } from '../../../src/server/sessions/expiry';
import { createSession } from '../../../src/server/sessions/store';
import { startTempPostgres, type TempPostgres } from './pg-server';

describe('guards on PostgreSQL, two connection pools', () => {
  let server: TempPostgres | null = null;
  let adminUrl: string;
  let dbName: string;
  let one: Db;
  let two: Db;

  beforeAll(async () => {
    if (process.env.PARLEY_TEST_DATABASE_URL) adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
    else {
      server = await startTempPostgres();
      adminUrl = server.url;
    }
    dbName = `parley_guards_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    one = await openDatabase({ kind: 'postgres', url: u.toString() });
    two = await openDatabase({ kind: 'postgres', url: u.toString() });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.end();
    await server?.stop();
  });

  it('60 parallel checks through both pools take exactly the burst', async () => {
    const limit = { burst: 10, perMinute: 1 };
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => takeToken(i % 2 === 0 ? one : two, 'sessions:192.0.2.1', limit)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    const refused = results.filter((r) => !r.allowed);
    expect(refused).toHaveLength(50);
    for (const r of refused) expect(r.retryAfterS).toBeGreaterThanOrEqual(1);
  });

  it('two processes leasing tokens in blocks from one bucket pass exactly the burst together', async () => {
    const limit = { burst: 300, perMinute: 1 };
    const a = new LeasedBuckets(one, limit);
    const b = new LeasedBuckets(two, limit);
    let allowed = 0;
    for (let round = 0; round < 8; round++) {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).take('costly:192.0.2.5')));
      allowed += results.filter((r) => r.allowed).length;
    }
    expect(allowed).toBe(300);
    await Promise.all([a.close(), b.close()]);
  });

  it('two sweeps at once delete each expired moneyless session once and keep the funded one', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await createSession(one)).session.id);
    const funded = (await createSession(one)).session.id;
    await new Ledger(one, { nanoPriceUsdMicro: 1_000_000n }).credit(funded, { key: `seed:${funded}`, usdMicro: 1n });
    await one.query(`UPDATE sessions SET last_seen_at = now() - interval '2 hours'`);
    const [a, b] = await Promise.all([expireIdleSessions(one, 3_600_000, 7), expireIdleSessions(two, 3_600_000, 7)]);
    let total = a + b;
    for (;;) {
      const n = await expireIdleSessions(two, 3_600_000, 7);
      if (n === 0) break;
      total += n;
    }
    expect(total).toBe(30);
    const left = await one.query<{ id: string }>('SELECT id FROM sessions');
    expect(left.map((r) => r.id)).toEqual([funded]);
  });
});
