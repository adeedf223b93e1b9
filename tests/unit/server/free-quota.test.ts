/**
 * Issue 15, item 6: flux-schnell's 10 free images a day hold beyond one session. They are counted per session (the
 * spec's 'count:date' metadata, unchanged for one user), per client address (IPv6 by /64) and for the whole
 * gateway a day (PARLEY_FREE_FLUX_PER_ADDRESS, PARLEY_FREE_FLUX_PER_DAY), in the database: parallel requests from
 * several sessions on one address, and two gateways on one PostgreSQL, never pass a count.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FLUX_METADATA_KEY } from '../../../src/protocol/image-rules';
import type { GenerateImageResponse } from '../../../src/protocol/media';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { type Env } from '../../../src/server/env-vars';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { addressGroup } from '../../../src/server/guards/client-address';
import { Ledger } from '../../../src/server/money/ledger';
import { MediaCatalogue } from '../../../src/server/media/catalogue';
import { VideoJobRunner } from '../../../src/server/media/video-jobs';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { startFakeMedia, type FakeMedia } from './fake-media';
import { getSession, newSession, type TestSession } from './helpers';
import { startTempPostgres, type TempPostgres } from './pg-server';

let fake: FakeMedia;
beforeAll(async () => {
  fake = await startFakeMedia();
});
afterAll(() => fake.close());

const DAY = Date.UTC(2025, 5, 1, 12, 0);
/** The address a test request comes from: read from a header by the test's own resolver (no socket in process). */
const FROM = 'x-test-address';

const env = (more: Env = {}): Env => ({
  PARLEY_OFFLINE_TOKEN_DELAY_MS: '0',
  PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, key: 'sk-test', models: ['flux-schnell'], pricing: { 'flux-schnell': '0.003' } }]),
  ...more,
});

interface Gw {
  app: ReturnType<typeof createApp>;
  db: Db;
  ledger: Ledger;
  clock: { now: number };
}

async function gateway(db: Db, more: Env = {}): Promise<Gw> {
  const config = loadConfig(env(more));
  const clock = { now: DAY };
  const media = new MediaCatalogue(config.media, () => clock.now);
  const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, log: () => {}, media });
  const ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
  const runner = new VideoJobRunner({ db, ledger, media, log: () => {}, intervalMs: 1_000_000, pollMs: 0 });
  const app = createApp({
    db,
    catalogue,
    ledger,
    log: () => {},
    settings: { guards: config.guards },
    clientAddress: (c) => c.req.header(FROM) ?? null,
    media: { catalogue: media, runner, now: () => clock.now, freeFlux: config.media.freeFlux },
  });
  return { app, db, ledger, clock };
}

async function ask(g: Gw, s: TestSession, address: string | null): Promise<{ status: number; body: GenerateImageResponse & { error?: string; message?: string } }> {
  const headers: Record<string, string> = { cookie: s.cookie, 'content-type': 'application/json' };
  if (address !== null) headers[FROM] = address;
  const res = await g.app.request('/api/generate-image', { method: 'POST', headers, body: JSON.stringify({ prompt: 'a lighthouse', model: 'flux-schnell', conversationUUID: 'c' }) });
  return { status: res.status, body: (await res.json()) as GenerateImageResponse & { error?: string; message?: string } };
}

const isFree = (r: { status: number; body: GenerateImageResponse }) => r.status === 200 && r.body.cost === 0;

/** Session metadata counts, summed: what the sessions think they used. */
async function sessionCounts(g: Gw, sessions: TestSession[]): Promise<number> {
  let sum = 0;
  for (const s of sessions) sum += Number(((await getSession(g.app, s.cookie)).metadata[FREE_FLUX_METADATA_KEY] ?? '0:').split(':')[0]);
  return sum;
}

describe('the free flux-schnell quota on PGlite', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase({ kind: 'memory' });
  });
  afterAll(async () => {
    await db.close();
  });

  it('one user on one address: the spec behaviour, 10 free with the count:date metadata, then the deposit 402', async () => {
    const g = await gateway(db);
    const s = await newSession(g.app);
    for (let i = 0; i < 10; i++) {
      const r = await ask(g, s, '198.51.100.1');
      expect(isFree(r), JSON.stringify(r.body).slice(0, 200)).toBe(true);
      expect(r.body.freeUsesLeft).toBe(9 - i);
    }
    expect((await getSession(g.app, s.cookie)).metadata[FREE_FLUX_METADATA_KEY]).toBe('10:2025-06-01');
    const over = await ask(g, s, '198.51.100.1');
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ error: 'FREE_LIMIT_REACHED', message: 'Your 10 free flux-schnell images for today are used up. Add funds to keep generating.' });
  });

  it('24 parallel requests from 3 fresh sessions on one address: 10 free images in all, the rest refused; another address has its own', async () => {
    const g = await gateway(db);
    const sessions = [await newSession(g.app), await newSession(g.app), await newSession(g.app)];
    const before = fake.requests.length;
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => ask(g, sessions[i % 3]!, '203.0.113.50')));
    expect(results.filter(isFree)).toHaveLength(10);
    const refused = results.filter((r) => !isFree(r));
    expect(refused.every((r) => r.status === 402 && r.body.error === 'FREE_LIMIT_REACHED')).toBe(true);
    expect(refused.some((r) => r.body.message === "Today's free flux-schnell images for your network are used up. Add funds to keep generating.")).toBe(true);
    // The provider made 10 images, and the sessions' own counts agree.
    expect(fake.requests.length - before).toBe(10);
    expect(await sessionCounts(g, sessions)).toBe(10);
    // A fourth session on the address gets nothing free; an IPv4-mapped spelling is the same address.
    expect(isFree(await ask(g, await newSession(g.app), '203.0.113.50'))).toBe(false);
    expect(isFree(await ask(g, await newSession(g.app), '::ffff:203.0.113.50'))).toBe(false);
    // Another address still has its 10.
    expect(isFree(await ask(g, await newSession(g.app), '203.0.113.51'))).toBe(true);
  });

  it('IPv6 addresses count by /64: a new address in the same /64 shares the quota', async () => {
    expect(addressGroup('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:2:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('::ffff:192.0.2.7')).toBe('192.0.2.7');
    const g = await gateway(db, { PARLEY_FREE_FLUX_PER_ADDRESS: '3' });
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await ask(g, await newSession(g.app), `2001:db8:1:2::${(i + 1).toString(16)}`));
    expect(results.filter(isFree)).toHaveLength(3);
    expect(isFree(await ask(g, await newSession(g.app), '2001:db8:1:3::1'))).toBe(true);
  });

  it('the daily total holds over every address, in parallel; a failed generation gives its use back to every count', async () => {
    await db.query('DELETE FROM free_quota_uses');
    const g = await gateway(db, { PARLEY_FREE_FLUX_PER_DAY: '15' });
    const jobs: Promise<Awaited<ReturnType<typeof ask>>>[] = [];
    for (let a = 0; a < 4; a++) {
      const sessions = [await newSession(g.app), await newSession(g.app)];
      for (let i = 0; i < 10; i++) jobs.push(ask(g, sessions[i % 2]!, `192.0.2.${10 + a}`));
    }
    const results = await Promise.all(jobs);
    expect(results.filter(isFree)).toHaveLength(15);
    expect(results.filter((r) => r.body.message === "Today's free flux-schnell images on this server are used up. Add funds to keep generating.").length).toBeGreaterThan(0);
    expect((await db.query<{ used: number }>(`SELECT used FROM free_quota_uses WHERE scope = 'total'`))[0]?.used).toBe(15);

    // The next day, a failure: the use goes back to the session, the address and the day.
    g.clock.now = DAY + 86_400_000;
    fake.image = 'error';
    try {
      expect((await ask(g, await newSession(g.app), '192.0.2.99')).status).toBe(502);
    } finally {
      fake.image = 'ok';
    }
    const rows = await db.query<{ scope: string; used: number }>(`SELECT scope, used FROM free_quota_uses WHERE day = '2025-06-02' ORDER BY scope`);
    expect(rows).toEqual([
      { scope: 'addr:192.0.2.99', used: 0 },
      { scope: 'total', used: 0 },
    ]);
  });

  it('a count set to 0 turns the free uses off: every flux-schnell image is paid', async () => {
    const g = await gateway(db, { PARLEY_FREE_FLUX_PER_DAY: '0' });
    const s = await newSession(g.app);
    expect((await ask(g, s, '192.0.2.200')).status).toBe(402);
    await g.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
    const paid = await ask(g, s, '192.0.2.200');
    expect(paid.status).toBe(200);
    expect(paid.body.cost).toBeCloseTo(0.003);
  });
});

describe('the free flux-schnell quota on PostgreSQL, two gateways', () => {
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
    dbName = `parley_quota_${randomBytes(6).toString('hex')}`;
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

  it('24 parallel requests from 3 sessions on one address through two gateways: 10 free; the day total across addresses too', async () => {
    const a = await gateway(one, { PARLEY_FREE_FLUX_PER_DAY: '25' });
    const b = await gateway(two, { PARLEY_FREE_FLUX_PER_DAY: '25' });
    const sessions = [await newSession(a.app), await newSession(b.app), await newSession(a.app)];
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => ask(i % 2 === 0 ? a : b, sessions[i % 3]!, '203.0.113.77')));
    expect(results.filter(isFree)).toHaveLength(10);
    expect(await sessionCounts(a, sessions)).toBe(10);
    // 30 more from three other addresses: 15 left of the day's 25.
    const more = [];
    for (let k = 0; k < 3; k++) {
      const s = [await newSession(a.app), await newSession(b.app)];
      for (let i = 0; i < 10; i++) more.push(ask(i % 2 === 0 ? a : b, s[i % 2]!, `203.0.113.${80 + k}`));
    }
    expect((await Promise.all(more)).filter(isFree)).toHaveLength(15);
  });
});
