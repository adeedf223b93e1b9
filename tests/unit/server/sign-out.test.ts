/**
 * Recovery revokes (issue 15 item 9): a new recovery code, or "Sign out other browsers", signs every other browser
 * out of the session; their next call is refused as SIGNED_OUT, the asking browser stays signed in. On embedded
 * PGlite (one process: the token cache is dropped by the sign-out) and on PostgreSQL with two gateways on two
 * connection pools (two processes: the other one never heard of the sign-out), with the races a thief can run.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNED_OUT, SIGNED_OUT_MESSAGE } from '../../../src/protocol/api';
import type { AppEnv } from '../../../src/server/http';
import { openDatabase } from '../../../src/server/db/open';
import type { Db, Queryable, Row, SqlParam } from '../../../src/server/db/types';
import { call, moneyGateway, type MoneyGateway } from './money/helpers';
import { startTempPostgres, type TempPostgres } from './pg-server';

type App = Hono<AppEnv>;

/** Enters a recovery code in a browser with no cookie; its new cookie. */
async function recover(app: App, code: string): Promise<string | null> {
  const res = await app.request('/auth/recover', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  if (res.status !== 200) return null;
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? null;
}

async function newCode(app: App, cookie: string): Promise<string> {
  const made = await call<{ code: string }>(app, 'POST', '/api/session/recovery-code', cookie);
  expect(made.status).toBe(200);
  return made.body.code;
}

/** The balance a browser reads (GET /auth/local-session), or the refusal. */
async function balance(app: App, cookie: string): Promise<{ status: number; usd?: string; error?: string; setCookie: string | null }> {
  const res = await app.request('/auth/local-session', { headers: { cookie } });
  const body = (await res.json()) as { data?: { usd_balance: string }; error?: string };
  return { status: res.status, ...(body.data ? { usd: body.data.usd_balance } : {}), ...(body.error ? { error: body.error } : {}), setCookie: res.headers.get('set-cookie') };
}

/** Many browsers enter codes from one address here. */
const ENV = { PARLEY_GUESS_RATE_BURST: '10000', PARLEY_SESSION_RATE_BURST: '10000' };

/** An /api call (the invitations list: money, no upstream). */
const apiStatus = async (app: App, cookie: string) => (await call(app, 'GET', '/api/invitations', cookie)).status;

/**
 * The scenario on an owner's gateway and a thief's (the same one, or two processes): the thief enters a leaked
 * code and uses the session; the owner makes a new code; the thief is signed out at its very next call.
 */
async function leakedCodeIsRevoked(owner: MoneyGateway, thiefApp: App): Promise<void> {
  const s = await owner.session();
  await owner.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 7_500_000n });
  const leaked = await newCode(owner.app, s.cookie);
  const thief = (await recover(thiefApp, leaked))!;
  expect(thief).toMatch(/^parley_session=/);
  // The thief reads the balance and calls /api (its token is now in that process's cache).
  expect(await balance(thiefApp, thief)).toMatchObject({ status: 200, usd: '7.500000' });
  expect(await apiStatus(thiefApp, thief)).toBe(200);
  expect(await apiStatus(thiefApp, thief)).toBe(200);

  const fresh = await newCode(owner.app, s.cookie);
  expect(fresh).not.toBe(leaked);

  // The thief's next calls: refused as signed out, plainly.
  const api = await call<{ error: string; message: string }>(thiefApp, 'GET', '/api/invitations', thief);
  expect(api).toEqual({ status: 401, body: { error: SIGNED_OUT, message: SIGNED_OUT_MESSAGE } });
  expect((await call(thiefApp, 'POST', '/api/session/recovery-code', thief)).status).toBe(401);
  expect((await call(thiefApp, 'POST', '/api/session/sign-out-others', thief)).status).toBe(401);
  expect((await call(thiefApp, 'GET', '/auth/account-merge-check', thief)).body).toEqual({ canMigrate: false, hasRecoveryCode: false });
  const read = await balance(thiefApp, thief);
  expect(read).toMatchObject({ status: 401, error: SIGNED_OUT });
  expect(read.usd).toBeUndefined();
  // ... and told to forget the cookie: its next call without it is a new, empty session.
  expect(read.setCookie).toMatch(/^parley_session=;.*Max-Age=0/);
  const after = await call<{ data: { id: string; usd_balance: string } }>(thiefApp, 'GET', '/auth/local-session', null);
  expect(after.body.data.id).not.toBe(s.data.id);
  expect(after.body.data.usd_balance).toBe('0.000000');
  // The leaked code opens nothing; the owner is signed in as before, on both gateways.
  expect(await recover(thiefApp, leaked)).toBeNull();
  expect(await balance(owner.app, s.cookie)).toMatchObject({ status: 200, usd: '7.500000' });
  expect(await balance(thiefApp, s.cookie)).toMatchObject({ status: 200, usd: '7.500000' });
  expect(await apiStatus(thiefApp, s.cookie)).toBe(200);
  // The new code still works (for the owner's next browser).
  const phone = (await recover(thiefApp, fresh))!;
  expect(await balance(owner.app, phone)).toMatchObject({ status: 200, usd: '7.500000' });
}

/** "Sign out other browsers" from a browser that entered the code: the first browser (a copied cookie) is out too. */
async function signOutOthersKeepsOnlyThisBrowser(owner: MoneyGateway, other: App): Promise<void> {
  const first = await owner.session();
  const code = await newCode(owner.app, first.cookie);
  const laptop = (await recover(other, code))!;
  const tablet = (await recover(owner.app, code))!;
  for (const c of [first.cookie, laptop, tablet]) expect(await apiStatus(other, c)).toBe(200);

  const done = await call(other, 'POST', '/api/session/sign-out-others', laptop);
  expect(done).toEqual({ status: 200, body: { ok: true } });
  for (const app of [owner.app, other]) {
    expect(await apiStatus(app, first.cookie)).toBe(401);
    expect(await apiStatus(app, tablet)).toBe(401);
    expect(await apiStatus(app, laptop)).toBe(200);
    expect(await balance(app, laptop)).toMatchObject({ status: 200 });
  }
  expect(await balance(owner.app, first.cookie)).toMatchObject({ status: 401, error: SIGNED_OUT });
  // Signing out keeps the code (the confirmation says so): a browser can enter it again. A second sign-out from
  // the same browser signs that one out too.
  const again = (await recover(owner.app, code))!;
  expect(await apiStatus(other, again)).toBe(200);
  expect((await call(owner.app, 'POST', '/api/session/sign-out-others', laptop)).status).toBe(200);
  expect(await apiStatus(other, again)).toBe(401);
  expect(await apiStatus(other, laptop)).toBe(200);
}

/** Races: a thief entering the code while the owner makes a new one; two browsers signing each other out. */
async function racesLeaveNoThief(owner: MoneyGateway, thiefApp: App): Promise<void> {
  for (let round = 0; round < 12; round++) {
    const s = await owner.session();
    const leaked = await newCode(owner.app, s.cookie);
    const [thief] = await Promise.all([recover(thiefApp, leaked), newCode(owner.app, s.cookie)]);
    // Either the code was already gone, or the thief's fresh token was signed out with the rest.
    if (thief !== null) expect(await apiStatus(thiefApp, thief)).toBe(401);
    expect(await apiStatus(thiefApp, s.cookie)).toBe(200);

    const code = await newCode(owner.app, s.cookie);
    const other = (await recover(thiefApp, code))!;
    const answers = await Promise.all([
      call(owner.app, 'POST', '/api/session/sign-out-others', s.cookie),
      call(thiefApp, 'POST', '/api/session/sign-out-others', other),
    ]);
    // Exactly one of the two asked first and stays; the other was signed out by it and is refused.
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
    const alive = await Promise.all([apiStatus(owner.app, s.cookie), apiStatus(thiefApp, other)]);
    expect(alive).toEqual(answers[0]!.status === 200 ? [200, 401] : [401, 200]);
  }
}

describe('recovery revokes, embedded PGlite', () => {
  let gw: MoneyGateway;
  beforeAll(async () => {
    gw = await moneyGateway(ENV);
  });
  afterAll(async () => {
    await gw.close();
  });

  it('a new recovery code signs out the browser that used the leaked one: its next call is refused, it cannot read the balance', async () => {
    await leakedCodeIsRevoked(gw, gw.app);
  });

  it('"Sign out other browsers" leaves only the asking browser signed in, even one that entered the code', async () => {
    await signOutOthersKeepsOnlyThisBrowser(gw, gw.app);
  });

  it('races: a thief entering the code while the owner makes a new one, two browsers signing each other out', async () => {
    await racesLeaveNoThief(gw, gw.app);
  });

  /**
   * A gateway whose token lookups wait at a gate the test opens, a session and a thief signed in with its code.
   * `lookUp(call)` starts the thief's call, waits until its token lookup is held, has the owner sign the other
   * browsers out meanwhile, then lets the lookup answer (from before the sign-out): the call's own answer.
   */
  async function thiefLookedUpDuringSignOut<T>(thiefCall: (app: App, thief: string) => Promise<T>): Promise<{ answer: T; app: App; thief: string }> {
    const base = gw.db;
    let gate: Promise<void> | null = null;
    let entered: () => void = () => {};
    const lookupStarted = new Promise<void>((r) => (entered = r));
    const gated: Db = {
      kind: base.kind,
      async query<R extends Row = Row>(sql: string, params?: readonly SqlParam[]): Promise<R[]> {
        const result = await base.query<R>(sql, params);
        if (gate && sql.includes('UNION ALL') && sql.includes('session_tokens')) {
          entered();
          await gate;
        }
        return result;
      },
      transaction: <R>(fn: (tx: Queryable) => Promise<R>) => base.transaction(fn),
      close: () => base.close(),
    };
    const slow = await moneyGateway(ENV, { db: gated });
    const s = await slow.session();
    const code = await newCode(slow.app, s.cookie);
    const thief = (await recover(slow.app, code))!;
    let open: () => void = () => {};
    gate = new Promise<void>((r) => (open = r));
    const first = thiefCall(slow.app, thief);
    await lookupStarted;
    expect((await call(slow.app, 'POST', '/api/session/sign-out-others', s.cookie)).status).toBe(200);
    gate = null;
    open();
    return { answer: await first, app: slow.app, thief };
  }

  it('a thief whose token is being looked up while the owner signs it out is not remembered as signed in', async () => {
    const { answer, app, thief } = await thiefLookedUpDuringSignOut(apiStatus);
    // That call began before the sign-out; the next one is after it.
    expect(answer).toBe(200);
    expect(await apiStatus(app, thief)).toBe(401);
  });

  it('a thief reading the balance while the owner signs it out is not remembered as signed in either', async () => {
    // GET /auth/local-session keeps the token it found, as the /api check does: not when a sign-out came between.
    const { answer, app, thief } = await thiefLookedUpDuringSignOut(balance);
    expect(answer).toMatchObject({ status: 200, usd: '0.000000' });
    expect(await apiStatus(app, thief)).toBe(401);
    expect(await balance(app, thief)).toMatchObject({ status: 401, error: SIGNED_OUT });
  });
});

describe('recovery revokes, PostgreSQL with two gateway processes', () => {
  let server: TempPostgres | null = null;
  let dbs: Db[] = [];
  let a: MoneyGateway;
  let b: MoneyGateway;

  beforeAll(async () => {
    let adminUrl: string;
    if (process.env.PARLEY_TEST_DATABASE_URL) adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
    else {
      server = await startTempPostgres();
      adminUrl = server.url;
    }
    const dbName = `parley_signout_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    // Two pools, two apps: what two gateway processes on one database have, memory apart.
    dbs = [await openDatabase({ kind: 'postgres', url: u.toString() }), await openDatabase({ kind: 'postgres', url: u.toString() })];
    a = await moneyGateway(ENV, { db: dbs[0] });
    b = await moneyGateway(ENV, { db: dbs[1] });
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
    await server?.stop();
  });

  it('a new code made through one process signs out the thief using the other: refused at its next call', async () => {
    await leakedCodeIsRevoked(a, b.app);
  });

  it('"Sign out other browsers" through one process holds in the other', async () => {
    await signOutOthersKeepsOnlyThisBrowser(a, b.app);
  });

  it('races across the two processes leave no thief signed in and one of two rivals', async () => {
    await racesLeaveNoThief(a, b.app);
  });
});
