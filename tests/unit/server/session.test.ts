import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
        ['/api/stream-gpt', { method: 'POST', headers, body: '{}' }],
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
