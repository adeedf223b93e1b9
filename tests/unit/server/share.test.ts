/**
 * Share links (issue 20, spec 001 section 2): POST /api/share stores a conversation's repro log under a random id
 * and hands the owner token to the publisher only; GET /share/:id is the app's page (404 once deleted) and
 * GET /share/:id/log the log as data; DELETE needs the owner token. Size, rate and count limits. The store's SQL on
 * embedded PGlite (the app) and on a real PostgreSQL (the same statements through the other adapter).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/server/app';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { loadConfig } from '../../../src/server/config';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { createShare, deleteShare, readShare } from '../../../src/server/share/store';
import { SHARE_MISSING_TEXT, SHARE_OWNER_HEADER, type ShareCreated } from '../../../src/protocol/share';
import { encodeLog } from '../../../src/events/codec';
import { newSession } from './helpers';
import { startTempPostgres, type TempPostgres } from './pg-server';

const LOG = encodeLog([], { exportedAt: 1 });
const NDJSON = { 'content-type': 'application/x-ndjson' };

describe('share routes (embedded PGlite)', () => {
  let db: Db;
  let app: ReturnType<typeof createApp>;
  let clientDir: string;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    db = await openDatabase({ kind: 'memory' });
    clientDir = mkdtempSync(join(tmpdir(), 'parley-share-'));
    writeFileSync(join(clientDir, 'index.html'), '<!doctype html><title>Parley</title>');
    const config = loadConfig({});
    const catalogue = await Catalogue.create(config.upstreams, { offlineTokenDelayMs: 0, discoveryTimeoutMs: config.discoveryTimeoutMs, log: () => {} });
    app = createApp({
      db,
      catalogue,
      clientDir,
      log: () => {},
      onClose: (fn) => closers.push(fn),
      // Rate per session: 3 publishes then refused; at most 4 kept (the count cap is checked with a fresh session).
      share: { maxBytes: 4096, rate: { burst: 3, perMinute: 1 }, maxPerSession: 2 },
      clientAddress: () => null,
    });
  });
  afterAll(async () => {
    await Promise.all(closers.map((fn) => fn()));
    await db.close();
    rmSync(clientDir, { recursive: true, force: true });
  });

  async function publish(cookie: string, body: string = LOG): Promise<Response> {
    return app.request('/api/share', { method: 'POST', headers: { cookie, ...NDJSON }, body });
  }

  it('publishes, serves the page and the log to anyone, and deletes only with the owner token', async () => {
    const owner = await newSession(app);
    const res = await publish(owner.cookie);
    expect(res.status).toBe(201);
    const made = (await res.json()) as ShareCreated;
    expect(made.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(made.url).toBe(`/share/${made.id}`);
    expect(made.ownerToken.length).toBeGreaterThanOrEqual(40);

    // A reader with no session at all.
    const page = await app.request(made.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Parley</title>');
    const log = await app.request(`${made.url}/log`);
    expect(log.status).toBe(200);
    expect(await log.text()).toBe(LOG);
    expect(log.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(log.headers.get('x-content-type-options')).toBe('nosniff');
    expect(log.headers.get('content-security-policy')).toContain('sandbox');
    expect(log.headers.get('content-disposition')).toMatch(/^attachment/);

    // Another session, a wrong token, no token: refused; the share is still there.
    const other = await newSession(app);
    const del = (cookie: string, token: string | null) =>
      app.request(`/api/share/${made.id}`, { method: 'DELETE', headers: { cookie, 'content-type': 'application/json', ...(token === null ? {} : { [SHARE_OWNER_HEADER]: token }) } });
    expect((await del(other.cookie, 'x'.repeat(43))).status).toBe(403);
    expect((await del(other.cookie, null)).status).toBe(403);
    expect((await del(owner.cookie, made.ownerToken.slice(0, -1) + (made.ownerToken.endsWith('A') ? 'B' : 'A'))).status).toBe(403);
    expect((await app.request(made.url)).status).toBe(200);
    // Without a session the /api route is not reached at all.
    expect((await app.request(`/api/share/${made.id}`, { method: 'DELETE', headers: { 'content-type': 'application/json', [SHARE_OWNER_HEADER]: made.ownerToken } })).status).toBe(401);

    // The owner token deletes it (from any session holding it: the engine keeps it); then 404 everywhere.
    expect((await del(other.cookie, made.ownerToken)).status).toBe(200);
    const gone = await app.request(made.url, { headers: { 'if-none-match': page.headers.get('etag') ?? '' } });
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain(SHARE_MISSING_TEXT);
    expect(gone.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await app.request(`${made.url}/log`)).status).toBe(404);
    expect((await del(owner.cookie, made.ownerToken)).status).toBe(404);
  });

  it('ids are unguessable: an unknown or malformed id is 404', async () => {
    expect((await app.request(`/share/${'A'.repeat(22)}`)).status).toBe(404);
    expect((await app.request('/share/..%2F..%2Fetc')).status).toBe(404);
    expect((await app.request(`/share/${'A'.repeat(22)}/log`)).status).toBe(404);
  });

  it('refuses a body over the size limit, a body that is not a log, and a text/plain body', async () => {
    const s = await newSession(app);
    const big = await publish(s.cookie, LOG + 'x'.repeat(4096));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toContain('Download the file instead');
    expect((await publish(s.cookie, '<script>alert(1)</script>\n')).status).toBe(400);
    expect((await publish(s.cookie, '')).status).toBe(400);
    const plain = await app.request('/api/share', { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'text/plain' }, body: LOG });
    expect(plain.status).toBe(415);
  });

  it('limits publishes per session (rate) and the links one session keeps (count)', async () => {
    const a = await newSession(app);
    const made: ShareCreated[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await publish(a.cookie);
      expect(r.status).toBe(201);
      made.push((await r.json()) as ShareCreated);
    }
    const third = await publish(a.cookie);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: string }).error).toBe('TOO_MANY_SHARES');
    // Rate: the bucket of 3 is now empty for this session, even after a delete frees a slot.
    const first = made[0] as ShareCreated;
    const gone = await app.request(`/api/share/${first.id}`, { method: 'DELETE', headers: { cookie: a.cookie, 'content-type': 'application/json', [SHARE_OWNER_HEADER]: first.ownerToken } });
    expect(gone.status).toBe(200);
    const fourth = await publish(a.cookie);
    expect(fourth.status).toBe(429);
    expect(((await fourth.json()) as { error: string }).error).toBe('RATE_LIMITED');
    expect(fourth.headers.get('retry-after')).not.toBeNull();
    // Another session has its own bucket.
    const b = await newSession(app);
    expect((await publish(b.cookie)).status).toBe(201);
  });

  it('parallel publishes of one session keep to the count cap', async () => {
    const s = await newSession(app);
    const results = await Promise.all([0, 1, 2].map(() => publish(s.cookie)));
    expect(results.filter((r) => r.status === 201).length).toBeLessThanOrEqual(2);
  });
});

describe('share store on PostgreSQL', () => {
  let server: TempPostgres | null = null;
  let adminUrl: string;
  let dbName: string;
  let db: Db;
  let dbUrl: string;
  beforeAll(async () => {
    if (process.env.PARLEY_TEST_DATABASE_URL) adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
    else {
      server = await startTempPostgres();
      adminUrl = server.url;
    }
    dbName = `parley_share_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
    db = await openDatabase({ kind: 'postgres', url: dbUrl });
  });
  afterAll(async () => {
    await db?.close();
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.end();
    await server?.stop();
  });

  it('creates within the cap, reads, refuses another token, deletes with the owner token', async () => {
    await db.query(`INSERT INTO sessions (id, session_uuid, token_hash) VALUES ('s1', gen_random_uuid(), 'h1')`);
    const make = (id: string) => createShare(db, { id, sessionId: 's1', ownerToken: `t-${id}`, body: LOG, bytes: LOG.length, maxPerSession: 1 });
    expect(await make('one')).toEqual({ ok: true });
    expect(await make('two')).toEqual({ ok: false, reason: 'too-many' });
    expect(await readShare(db, 'one')).toBe(LOG);
    expect(await deleteShare(db, 'one', 't-two')).toBe('forbidden');
    expect(await deleteShare(db, 'one', 't-one')).toBe('deleted');
    expect(await readShare(db, 'one')).toBeNull();
    expect(await deleteShare(db, 'one', 't-one')).toBe('missing');
  });

  it('30 parallel publishes of one session, through two connection pools, keep exactly the cap', async () => {
    await db.query(`INSERT INTO sessions (id, session_uuid, token_hash) VALUES ('s2', gen_random_uuid(), 'h2')`);
    // Each insert waits 50 ms before it lands: the window in which parallel publishes that counted at the same
    // instant would all pass the cap together (they do without the session lock).
    await db.query(`CREATE FUNCTION share_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.05); RETURN NEW; END $$`);
    await db.query(`CREATE TRIGGER share_slow BEFORE INSERT ON shared_conversations FOR EACH ROW EXECUTE FUNCTION share_slow()`);
    const other = await openDatabase({ kind: 'postgres', url: dbUrl });
    try {
      const made = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          createShare(i % 2 === 0 ? db : other, { id: `p${i}`, sessionId: 's2', ownerToken: `t-p${i}`, body: LOG, bytes: LOG.length, maxPerSession: 5 }),
        ),
      );
      expect(made.filter((m) => m.ok)).toHaveLength(5);
      expect(made.filter((m) => !m.ok)).toEqual(Array.from({ length: 25 }, () => ({ ok: false, reason: 'too-many' })));
      expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM shared_conversations WHERE session_id = 's2'`))[0]?.n).toBe(5);
    } finally {
      await other.close();
    }
  });
});
