/**
 * The nano faucet (spec 001 sections 6 and 9: a free 0.1 XNO): off by default; where funded, one claim per session
 * and per client address, through the ledger, never past the operator's funds, rate-limited; parallel claims and
 * repeated requests credit exactly once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/server/config';
import { expectLedgerBalanced } from '../money-checks';
import { balanceOf, call, moneyGateway, type MoneyGateway } from './helpers';
import { FAUCET_CLAIM_XNO, FAUCET_TEXT } from '../../../../src/protocol/faucet';
import { RAW_PER_XNO } from '../../../../src/server/money/amounts';

const TENTH = RAW_PER_XNO / 10n;
const PROXY = { PARLEY_TRUSTED_PROXY_HEADER: 'x-test-client', PARLEY_SESSION_RATE_BURST: '10000', PARLEY_FAUCET_RATE_BURST: '10000' };
const from = (address: string) => ({ 'x-test-client': address });

let gw: MoneyGateway | null = null;
afterEach(async () => {
  await gw?.close();
  gw = null;
});
/** One gateway funded with 10 XNO for the claims of separate sessions and addresses (100 claims' worth). */
let funded: MoneyGateway;
beforeAll(async () => {
  funded = await moneyGateway({ ...PROXY, PARLEY_NANO_FAUCET_XNO: '10' });
});
afterAll(async () => {
  await funded?.close();
});

async function faucetEntries(g: MoneyGateway): Promise<number> {
  const rows = await g.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE idempotency_key LIKE 'faucet:%'`);
  return Number(rows[0]?.n);
}

describe('nano faucet', () => {
  it('is off by default: no button to show, a claim is refused', async () => {
    gw = await moneyGateway();
    const s = await gw.session();
    expect((await call(gw.app, 'GET', '/nano/faucet', s.cookie)).body).toEqual({ enabled: false, amount: '0.1', claimed: false, empty: true });
    expect(await call(gw.app, 'POST', '/nano/faucet', s.cookie)).toMatchObject({ status: 404, body: { error: 'FAUCET_OFF' } });
    expect((await balanceOf(gw.db, s.data.id)).nano).toBe(0n);
  });

  it('credits 0.1 XNO once per session through the ledger; a second claim is refused', async () => {
    const g = funded;
    const s = await g.session();
    const before = await faucetEntries(g);
    expect((await call(g.app, 'GET', '/nano/faucet', s.cookie)).body).toEqual({ enabled: true, amount: FAUCET_CLAIM_XNO, claimed: false, empty: false });
    const first = await call(g.app, 'POST', '/nano/faucet', s.cookie, undefined, from('198.51.100.1'));
    expect(first).toEqual({ status: 200, body: { amount: '0.1', nanoBalance: '0.100000' } });
    expect((await balanceOf(g.db, s.data.id)).nano).toBe(TENTH);
    // A repeated request (a retry, a replayed body) changes nothing, from any address.
    const again = await call(g.app, 'POST', '/nano/faucet', s.cookie, { requestId: 'same' }, from('198.51.100.2'));
    expect(again).toMatchObject({ status: 409, body: { error: 'ALREADY_CLAIMED', message: FAUCET_TEXT.ALREADY_CLAIMED } });
    expect((await balanceOf(g.db, s.data.id)).nano).toBe(TENTH);
    expect((await call(g.app, 'GET', '/nano/faucet', s.cookie)).body).toMatchObject({ claimed: true });
    // The entry is a ledger credit like any deposit: the books balance.
    expect((await faucetEntries(g)) - before).toBe(1);
    await expectLedgerBalanced(g.db, s.data.id);
  });

  it('parallel claims of one session credit exactly once', async () => {
    const g = funded;
    const s = await g.session();
    const before = await faucetEntries(g);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call(g.app, 'POST', '/nano/faucet', s.cookie, undefined, from(`203.0.113.${i + 1}`))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => (a.body as { error: string }).error === 'ALREADY_CLAIMED')).toBe(true);
    expect((await balanceOf(g.db, s.data.id)).nano).toBe(TENTH);
    expect((await faucetEntries(g)) - before).toBe(1);
  });

  it('one claim per client address: new sessions from the same address (an IPv6 /64 too) get nothing, even in parallel', async () => {
    const g = funded;
    const sessions = await Promise.all(Array.from({ length: 8 }, () => g.session()));
    const answers = await Promise.all(sessions.map((s) => call(g.app, 'POST', '/nano/faucet', s.cookie, undefined, from('2001:db8:1:2::10'))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).map((a) => (a.body as { error: string }).error)).toEqual(Array(7).fill('ADDRESS_USED'));
    // Another host of the same /64 is the same household.
    const other = await g.session();
    expect(await call(g.app, 'POST', '/nano/faucet', other.cookie, undefined, from('2001:db8:1:2:ffff::1'))).toMatchObject({ status: 409, body: { error: 'ADDRESS_USED' } });
    // A different address may claim.
    expect((await call(g.app, 'POST', '/nano/faucet', other.cookie, undefined, from('2001:db8:1:3::10'))).status).toBe(200);
    let total = 0n;
    for (const s of [...sessions, other]) total += (await balanceOf(g.db, s.data.id)).nano;
    expect(total).toBe(2n * TENTH);
    // The address is kept only as a keyed hash.
    const rows = await g.db.query<{ h: string }>('SELECT address_hash AS h FROM faucet_claims');
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.h))).toBe(true);
  });

  it('never pays past the operator\'s funds, however many claim at once; then says it is empty', async () => {
    gw = await moneyGateway({ ...PROXY, PARLEY_NANO_FAUCET_XNO: '0.25' });
    const g = gw;
    const sessions = await Promise.all(Array.from({ length: 6 }, () => g.session()));
    const answers = await Promise.all(sessions.map((s, i) => call(g.app, 'POST', '/nano/faucet', s.cookie, undefined, from(`192.0.2.${i + 1}`))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 409).map((a) => (a.body as { error: string }).error)).toEqual(Array(4).fill('FAUCET_EMPTY'));
    expect((await call(g.app, 'GET', '/nano/faucet', sessions[0]!.cookie)).body).toMatchObject({ enabled: true, empty: true });
    const paid = await g.db.query<{ p: string }>('SELECT SUM(nano_raw)::text AS p FROM faucet_claims');
    expect(BigInt(paid[0]!.p)).toBe(2n * TENTH);
  });

  it('claims are rate-limited per client address (429), before anything is credited', async () => {
    gw = await moneyGateway({ ...PROXY, PARLEY_FAUCET_RATE_BURST: '2', PARLEY_FAUCET_RATE_PER_MIN: '1', PARLEY_NANO_FAUCET_XNO: '10' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await gw.session();
      statuses.push((await call(gw.app, 'POST', '/nano/faucet', s.cookie, undefined, from('198.51.100.77'))).status);
    }
    expect(statuses).toEqual([200, 409, 429, 429]);
    expect(await faucetEntries(gw)).toBe(1);
  });

  it('a bad PARLEY_NANO_FAUCET_XNO stops the gateway at startup', () => {
    expect(() => loadConfig({ PARLEY_NANO_FAUCET_XNO: 'lots' })).toThrow(/PARLEY_NANO_FAUCET_XNO/);
    expect(loadConfig({}).money.faucetRaw).toBe(0n);
  });
});
