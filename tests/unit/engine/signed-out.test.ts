/**
 * A browser signed out of its session (issue 15 item 9), seen by its engine against a real gateway in process:
 * after another browser makes a new recovery code or signs the others out, the next session refresh or a refused
 * /api call says so in a notice that stays, drops the old session's figures and starts a new, empty session;
 * nothing throws. And the engine's own "Sign out other browsers".
 */
import 'fake-indexeddb/auto';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEXT } from '../../../src/protocol/money-text';
import type { Notice } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { fetchThrough, type JarFetch } from './harness';

let gateway: RunningGateway;
const realFetch = globalThis.fetch;
/** The engine's browser: its cookie jar (one cookie; a cookie cleared by the gateway leaves it empty). */
let jar: JarFetch;

beforeAll(async () => {
  gateway = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: null, log: () => undefined, env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' } });
  jar = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = jar;
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
});

const engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
  jar.forget();
});
let n = 0;
async function browserEngine(): Promise<Engine> {
  const e = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName: `signed-out-${++n}` });
  engines.push(e);
  await e.whenStarted();
  await e.refreshSession();
  return e;
}

/** Another browser, outside the engine: its own cookie. */
async function otherBrowser(): Promise<{ cookie: string; id: string }> {
  const res = await realFetch(`${gateway.url}/auth/local-session`);
  const body = (await res.json()) as { data: { id: string } };
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, id: body.data.id };
}
async function post(cookie: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await realFetch(`${gateway.url}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const noticeTitled = (e: Engine, title: string) =>
  firstValueFrom(e.notices$.pipe(filter((ns: Notice[]) => ns.some((x) => x.title === title)), timeout(15_000))).then((ns) => ns.find((x) => x.title === title)!);

describe('a browser signed out of its session', () => {
  it('after a new recovery code: the next refresh says so plainly, the old balance goes, a new empty session comes', async () => {
    const owner = await otherBrowser();
    await gateway.ledger.credit(owner.id, { key: `seed:${owner.id}`, usdMicro: 3_000_000n });
    const leaked = (await post(owner.cookie, '/api/session/recovery-code')).body.code as string;

    const thief = await browserEngine();
    expect(await thief.recoverSession(leaked)).toEqual({ ok: true });
    expect(thief.session$.value.session).toMatchObject({ id: owner.id, usd_balance: '3.000000' });

    expect((await post(owner.cookie, '/api/session/recovery-code')).status).toBe(200);
    const seen: (string | null)[] = [];
    const sub = thief.session$.subscribe((v) => seen.push(v.session?.id ?? null));
    await thief.refreshSession();
    sub.unsubscribe();

    const notice = await noticeTitled(thief, ACCOUNT_TEXT.signedOutTitle);
    expect(notice).toMatchObject({ text: ACCOUNT_TEXT.signedOutText, tone: 'orange', durationMs: null, action: { label: 'Go to wallet', kind: 'wallet' } });
    // The owner's figures went at once, then a session of its own.
    expect(seen[0]).toBe(owner.id);
    expect(seen).toContain(null);
    const fresh = thief.session$.value;
    expect(fresh.session?.id).toBeDefined();
    expect(fresh.session?.id).not.toBe(owner.id);
    expect(fresh).toMatchObject({ canUsePaidModels: false, error: null, session: { usd_balance: '0.000000' } });
    // The owner is untouched.
    const ownerNow = await realFetch(`${gateway.url}/auth/local-session`, { headers: { cookie: owner.cookie } });
    expect(((await ownerNow.json()) as { data: { usd_balance: string } }).data.usd_balance).toBe('3.000000');
  });

  it('after "Sign out other browsers": a refused /api call is enough, the engine refreshes and says so on its own', async () => {
    const owner = await otherBrowser();
    const code = (await post(owner.cookie, '/api/session/recovery-code')).body.code as string;
    const thief = await browserEngine();
    expect(await thief.recoverSession(code)).toEqual({ ok: true });

    expect(await post(owner.cookie, '/api/session/sign-out-others')).toEqual({ status: 200, body: { ok: true } });
    // Any call: the invitations list (an /api call) is refused as signed out.
    const list = await thief.listInvitations();
    expect(list.ok).toBe(false);
    await noticeTitled(thief, ACCOUNT_TEXT.signedOutTitle);
    await firstValueFrom(thief.session$.pipe(filter((v) => v.session !== null && v.session.id !== owner.id), timeout(15_000)));
    expect((await thief.listInvitations()).ok).toBe(true);
  });

  it('the engine signs the other browsers out: a green notice, this browser stays, the other is refused', async () => {
    const me = await browserEngine();
    const code = await me.createRecoveryCode();
    if (!code.ok) throw new Error(code.error);
    const res = await realFetch(`${gateway.url}/auth/recover`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: code.code }) });
    const laptop = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await realFetch(`${gateway.url}/api/invitations`, { headers: { cookie: laptop } })).status).toBe(200);

    expect(await me.signOutOtherBrowsers()).toEqual({ ok: true });
    expect(await noticeTitled(me, ACCOUNT_TEXT.othersSignedOutTitle)).toMatchObject({ text: ACCOUNT_TEXT.othersSignedOutText, tone: 'green' });
    expect((await realFetch(`${gateway.url}/api/invitations`, { headers: { cookie: laptop } })).status).toBe(401);
    expect((await me.listInvitations()).ok).toBe(true);
    await me.refreshSession();
    expect(me.notices$.value.some((x) => x.title === ACCOUNT_TEXT.signedOutTitle)).toBe(false);
  });
});
