/**
 * Video jobs on a real PostgreSQL through two connection pools (as two gateway processes have): two runners claim
 * the same due jobs at the same time with FOR UPDATE SKIP LOCKED; every job is submitted once, completed once and
 * charged once. Uses a throwaway server (./pg-server.ts) or PARLEY_TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateVideoResponse } from '../../../src/protocol/media';
import { loadMediaConfig } from '../../../src/server/media/config';
import { MediaCatalogue } from '../../../src/server/media/catalogue';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { VideoJobRunner } from '../../../src/server/media/video-jobs';
import { startFakeMedia, type FakeMedia } from './fake-media';
import { mediaGateway } from './media-helpers';
import { startTempPostgres, type TempPostgres } from './pg-server';

describe('video jobs on PostgreSQL, two gateways', () => {
  let server: TempPostgres | null = null;
  let adminUrl: string;
  let dbName: string;
  let one: Db;
  let two: Db;
  let fake: FakeMedia;

  beforeAll(async () => {
    fake = await startFakeMedia();
    if (process.env.PARLEY_TEST_DATABASE_URL) adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
    else {
      server = await startTempPostgres();
      adminUrl = server.url;
    }
    dbName = `parley_video_${randomBytes(6).toString('hex')}`;
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
    await fake?.close();
  });

  it('20 jobs, two runners ticking at once: each submitted, completed and charged exactly once', async () => {
    fake.statuses = ['IN_PROGRESS', 'COMPLETED'];
    const env = {
      PARLEY_VIDEO_PROVIDERS: JSON.stringify([{ name: 'q', url: `${fake.url}/queue`, models: ['fake/kling-video'], pricing: { 'fake/kling-video': '0.25' } }]),
    };
    const g = await mediaGateway(env, { now: Date.now() }, one);
    await g.credit(10_000_000n);
    const runIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await g.post('/api/generate-video', { prompt: `clip ${i}`, model: 'fake/kling-video', conversationUUID: 'c' });
      runIds.push(((await res.json()) as GenerateVideoResponse).runId);
    }
    const config = loadMediaConfig(env);
    const other = new VideoJobRunner({ db: two, ledger: new Ledger(two, { nanoPriceUsdMicro: 1_000_000n }), media: new MediaCatalogue(config), log: () => undefined, intervalMs: 1_000_000, pollMs: 0, batch: 3 });
    for (let round = 0; round < 40; round++) {
      const [a, b] = await Promise.all([g.runner.tick(), other.tick()]);
      if (a + b === 0) {
        const left = await one.query<{ n: string }>(`SELECT count(*)::text AS n FROM video_jobs WHERE status IN ('queued', 'submitted')`);
        if (left[0]?.n === '0') break;
      }
    }
    const jobs = await one.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM video_jobs GROUP BY status`);
    expect(jobs).toEqual([{ status: 'completed', n: '20' }]);
    const posted = fake.requests.filter((r) => r.path === '/queue/fake/kling-video').length;
    expect(posted).toBe(20);
    const charges = await one.query<{ n: string; total: string }>(`SELECT count(*)::text AS n, sum(requested_usd_micro)::text AS total FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [g.session.data.id]);
    expect(charges[0]).toEqual({ n: '20', total: '5000000' });
    expect(await g.balance()).toBe(5_000_000n);
    expect(new Set(runIds).size).toBe(20);
  }, 120_000);

  it("cancels racing another gateway's runner: a job is either cancelled before any provider had it (nothing charged) or run and charged once", async () => {
    fake.statuses = ['COMPLETED'];
    const env = {
      PARLEY_VIDEO_PROVIDERS: JSON.stringify([{ name: 'q', url: `${fake.url}/queue`, models: ['fake/kling-race'], pricing: { 'fake/kling-race': '0.25' } }]),
    };
    const g = await mediaGateway(env, { now: Date.now() }, one);
    await g.credit(10_000_000n);
    const config = loadMediaConfig(env);
    const other = new VideoJobRunner({ db: two, ledger: new Ledger(two, { nanoPriceUsdMicro: 1_000_000n }), media: new MediaCatalogue(config), log: () => undefined, intervalMs: 1_000_000, pollMs: 0, batch: 2 });
    const ids = Array.from({ length: 12 }, (_, i) => `pg-race-cancel-${i}`);
    for (const [i, requestId] of ids.entries()) {
      expect((await g.post('/api/generate-video', { prompt: `race clip ${i}.`, model: 'fake/kling-race', conversationUUID: 'c', requestId })).status).toBe(200);
    }
    // The runner of another gateway claims while this gateway cancels, one job after another.
    const cancels = (async () => {
      for (const requestId of ids) await g.post('/api/generate-video/cancel', { requestId, model: 'fake/kling-race' });
    })();
    const ticks = (async () => {
      for (let round = 0; round < 12; round++) await other.tick();
    })();
    await Promise.all([cancels, ticks]);
    for (let round = 0; round < 20; round++) if ((await other.tick()) === 0) break;
    const jobs = await one.query<{ input: { prompt: string }; status: string; cost: string }>(
      `SELECT input, status, cost_usd_micro::text AS cost FROM video_jobs WHERE session_id = $1 AND model = 'fake/kling-race'`,
      [g.session.data.id],
    );
    expect(jobs).toHaveLength(12);
    let completed = 0;
    for (const job of jobs) {
      const asked = fake.requests.filter((r) => r.path === '/queue/fake/kling-race' && r.body.includes(job.input.prompt)).length;
      if (job.status === 'cancelled') {
        expect([asked, job.cost]).toEqual([0, '0']);
      } else {
        expect([job.status, asked, job.cost]).toEqual(['completed', 1, '250000']);
        completed++;
      }
    }
    const charges = await one.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [g.session.data.id]);
    expect(charges[0]?.n).toBe(String(completed));
    expect(await g.balance()).toBe(10_000_000n - BigInt(completed) * 250_000n);
  }, 120_000);
});
