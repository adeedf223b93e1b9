import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSessionSweeper, expireIdleSessions } from '../../../src/server/sessions/expiry';
import { testGateway, newSession, getSession, errorBody, type TestGateway } from './helpers';

let gw: TestGateway;
beforeAll(async () => {
  gw = await testGateway();
});
afterAll(async () => {
  await gw.close();
});

const DECIMAL6 = /^\d+\.\d{6}$/;

describe('GET /auth/local-session', () => {
  it('creates an anonymous session with an HttpOnly, SameSite=Lax, Path=/ cookie', async () => {
    const res = await gw.app.request('/auth/local-session');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const set = res.headers.get('set-cookie') ?? '';
    expect(set).toMatch(/^parley_session=[A-Za-z0-9_-]{43};/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).toMatch(/Path=\//);
    expect(set).not.toMatch(/Secure/);
  });

  it('returns exactly the SessionData fields, with amounts as decimal strings', async () => {
    const { data } = await newSession(gw.app);
    expect(Object.keys(data).sort()).toEqual(
      [
        'id', 'sessionUUID', 'nanoDepositAddress', 'nanoReturnAddress', 'earned', 'usd_earned', 'usd_balance', 'nano_balance',
        'metadata', 'recharge_settings', 'numReplies', 'activePolicies', 'referrer', 'currency', 'displayCurrency',
      ].sort(),
    );
    expect(data.id).toMatch(/^ses_/);
    expect(data.sessionUUID).toMatch(/^[0-9a-f-]{36}$/);
    for (const v of [data.usd_balance, data.nano_balance, data.earned, data.usd_earned, data.recharge_settings.threshold, data.recharge_settings.amount]) {
      expect(typeof v).toBe('string');
      expect(v).toMatch(DECIMAL6);
    }
    expect(data.usd_balance).toBe('0.000000');
    expect(data.nano_balance).toBe('0.000000');
    expect(data.numReplies).toBe(0);
    expect(data.metadata).toEqual({});
    expect(data.activePolicies).toEqual([]);
    expect(data.nanoDepositAddress).toBeNull();
    expect(data.referrer).toBeNull();
    expect(data.recharge_settings.enabled).toBe(false);
    // currency is USD only when usd_balance > 0
    expect(data.currency).toBe('XNO');
  });

  it('reuses the session while the cookie is sent, and sets no new cookie', async () => {
    const s = await newSession(gw.app);
    const res = await gw.app.request('/auth/local-session', { headers: { cookie: s.cookie } });
    expect(res.headers.get('set-cookie')).toBeNull();
    const again = ((await res.json()) as { data: { id: string; sessionUUID: string } }).data;
    expect(again.id).toBe(s.data.id);
    expect(again.sessionUUID).toBe(s.data.sessionUUID);
  });

  it('creates a new session for an unknown or malformed cookie', async () => {
    const s = await newSession(gw.app);
    for (const cookie of ['parley_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'parley_session=%%%garbage', 'parley_session=']) {
      const res = await gw.app.request('/auth/local-session', { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/^parley_session=/);
      const body = (await res.json()) as { data: { id: string } };
      expect(body.data.id).not.toBe(s.data.id);
    }
  });

  it('balances are floored to 6 decimals; currency becomes USD when usd_balance > 0', async () => {
    const s = await newSession(gw.app);
    await gw.ledger.credit(s.data.id, { key: `t:${s.data.id}:1`, usdMicro: 1_234_567n, nanoRaw: 1_999_999_999_999_999_999_999_999_999_999n });
    const data = await getSession(gw.app, s.cookie);
    expect(data.usd_balance).toBe('1.234567');
    expect(data.nano_balance).toBe('1.999999'); // floored, not rounded
    expect(data.currency).toBe('USD');
  });
});

describe('session required on /api', () => {
  it('401 NO_SESSION without a cookie, with an unknown cookie, and with a malformed one', async () => {
    const variants: Record<string, string>[] = [{}, { cookie: 'parley_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, { cookie: 'parley_session=x' }, { cookie: 'other=1' }];
    for (const headers of variants) {
      const calls: [string, RequestInit][] = [
        ['/api/models', { headers }],
        ['/api/stream-gpt', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' }],
        ['/api/anything', { headers }],
      ];
      for (const [path, init] of calls) {
        const res = await gw.app.request(path, init);
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        const body = await errorBody(res);
        expect(body.error).toBe('NO_SESSION');
        expect(typeof body.message).toBe('string');
      }
    }
  });

  it('unknown /api routes with a session are 404 JSON', async () => {
    const s = await newSession(gw.app);
    const res = await gw.app.request('/api/nope', { headers: { cookie: s.cookie } });
    expect(res.status).toBe(404);
    expect((await errorBody(res)).error).toBe('NOT_FOUND');
  });
});

describe('session expiry', () => {
  const idleFor = (id: string, ms: number) =>
    gw.db.query(`UPDATE sessions SET last_seen_at = now() - ($2::float8 * interval '1 millisecond') WHERE id = $1`, [id, ms]);
  const exists = async (id: string) => (await gw.db.query('SELECT 1 FROM sessions WHERE id = $1', [id])).length === 1;

  it('deletes an idle session that never held money, with its free replies; keeps one that holds or held money', async () => {
    const idle = await newSession(gw.app);
    const funded = await newSession(gw.app);
    const spent = await newSession(gw.app);
    const fresh = await newSession(gw.app);
    await gw.ledger.credit(funded.data.id, { key: `seed:${funded.data.id}`, usdMicro: 5n });
    // Credited once, then everything spent: it held money, so its history stays.
    await gw.ledger.credit(spent.data.id, { key: `seed:${spent.data.id}`, usdMicro: 1n });
    await gw.db.query('UPDATE sessions SET usd_micro = 0 WHERE id = $1', [spent.data.id]);
    // A free reply leaves a $0 charge in the ledger: it goes with the session.
    const reply = await gw.app.request('/api/stream-gpt', {
      method: 'POST',
      headers: { cookie: idle.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'parley-offline', messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c', requestId: 'req-expiry-01' }),
    });
    await reply.text();
    await gw.ledger.freeReplies.flush(); // its $0 entry is written behind: in the table before the sweep
    expect(await gw.db.query('SELECT 1 FROM ledger_entries WHERE session_id = $1', [idle.data.id])).toHaveLength(1);
    for (const s of [idle, funded, spent]) await idleFor(s.data.id, 2 * 3_600_000);
    await idleFor(fresh.data.id, 1_000);

    expect(await expireIdleSessions(gw.db, 3_600_000)).toBeGreaterThanOrEqual(1);
    expect(await exists(idle.data.id)).toBe(false);
    expect(await gw.db.query('SELECT 1 FROM ledger_entries WHERE session_id = $1', [idle.data.id])).toHaveLength(0);
    expect(await exists(funded.data.id)).toBe(true);
    expect(await exists(spent.data.id)).toBe(true);
    expect(await exists(fresh.data.id)).toBe(true);
  });

  it('the token cache does not keep an expired session alive; the sweeper runs at startup', async () => {
    const quick = await gw.rebuild({ PARLEY_SESSION_TOUCH_MS: '0' });
    const s = await newSession(quick.app);
    expect((await quick.app.request('/api/models', { headers: { cookie: s.cookie } })).status).toBe(200);
    await idleFor(s.data.id, 10 * 60_000);
    const sweeper = startSessionSweeper(gw.db, { idleMs: 60_000, everyMs: 3_600_000, bucketIdleMs: 3_600_000 }, () => {});
    await sweeper.runOnce();
    await sweeper.stop();
    expect(await exists(s.data.id)).toBe(false);
    const res = await quick.app.request('/api/models', { headers: { cookie: s.cookie } });
    expect(res.status).toBe(401);
    expect((await errorBody(res)).message).toBe('Unknown or expired session: call GET /auth/local-session again');
    // The browser then gets a new session with its next GET /auth/local-session.
    const again = await quick.app.request('/auth/local-session', { headers: { cookie: s.cookie } });
    expect(again.headers.get('set-cookie')).toMatch(/^parley_session=/);
  });

  it('last_seen_at is written at most once per touch interval, not per request', async () => {
    const s = await newSession(gw.app); // default interval: 10 minutes
    await idleFor(s.data.id, 60_000);
    const before = await gw.db.query<{ t: string }>('SELECT last_seen_at::text AS t FROM sessions WHERE id = $1', [s.data.id]);
    for (let i = 0; i < 5; i++) expect((await gw.app.request('/api/models', { headers: { cookie: s.cookie } })).status).toBe(200);
    await getSession(gw.app, s.cookie);
    const after = await gw.db.query<{ t: string }>('SELECT last_seen_at::text AS t FROM sessions WHERE id = $1', [s.data.id]);
    expect(after[0]?.t).toBe(before[0]?.t);
  });
});
