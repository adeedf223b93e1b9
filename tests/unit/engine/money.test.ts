/**
 * The engine's money room against a real gateway in process: a deposit created, polled and credited; the polling
 * resumed by a new engine from the log; the spec's notices for failures (Transaction Failed, invitations, nano
 * conversion, auto-recharge).
 */
import 'fake-indexeddb/auto';
import { firstValueFrom, filter, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Notice, WalletView } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { deriveAddress, derivePublicKey, deriveSecretKey } from 'nanocurrency';
import { fetchThrough, type JarFetch } from './harness';
import { FAUCET_TEXT } from '../../../src/protocol/faucet';

/** A real nano account (checksum and all), as a user's wallet would show it. */
const RETURN_ADDRESS = deriveAddress(derivePublicKey(deriveSecretKey('1'.repeat(64), 7)), { useNanoPrefix: true });

let gateway: RunningGateway;
const realFetch = globalThis.fetch;
/** The engines' cookie jar: emptied between tests, and where a test plays another browser. */
let jar: JarFetch;
/** Answers the test gives in place of the gateway's, by path; and every path the engine asked for. */
const overrides = new Map<string, () => Response>();
const asked: string[] = [];

beforeAll(async () => {
  gateway = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: null, log: () => undefined, env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' } });
  jar = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), gateway.url);
    asked.push(url.pathname);
    const override = overrides.get(url.pathname);
    if (override) return override();
    return jar(input, init);
  };
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
});

const engines: Engine[] = [];
let n = 0;
function newEngine(dbName = `money-engine-${++n}`): Engine {
  const e = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
  engines.push(e);
  return e;
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
  jar.forget();
  overrides.clear();
  vi.useRealTimers();
});

const json = (body: unknown, status = 200) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const wallet = (e: Engine, until: (w: WalletView) => boolean) =>
  firstValueFrom(e.money.wallet$.pipe(filter(until), timeout(15_000)));
const notice = (e: Engine, title: string) =>
  firstValueFrom(e.notices$.pipe(filter((ns: Notice[]) => ns.some((x) => x.title === title)), timeout(15_000))).then((ns) => ns.find((x) => x.title === title)!);

async function press(txId: string, action: 'pay' | 'fail' | 'expire'): Promise<void> {
  const page = await realFetch(`${gateway.url}/pay/test/${txId}`);
  const token = /name="token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  await realFetch(`${gateway.url}/pay/test/${txId}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, action }) });
}

describe('the money room', () => {
  it('a deposit is polled until completed: the session is refreshed and a notice says so', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    const made = await e.createPayment('USD', '6');
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    // A method without a network: none kept; its USD value is.
    expect((await wallet(e, (w) => w.pending?.id === made.transaction.id)).pending).toMatchObject({ status: 'pending', network: null, usdEquivalent: '6.00' });
    await press(made.transaction.id, 'pay');
    const done = await wallet(e, (w) => w.pending === null && w.payments[0]?.status === 'completed');
    expect(done.payments[0]?.amount).toBe('6');
    await notice(e, 'Deposit received');
    expect(e.session$.value.session?.usd_balance).toBe('6.000000');
    // The log holds both events (the history survives a reload).
    expect((await e.db.events.where('type').anyOf(['payment.started', 'payment.settled']).sortBy('seq')).map((r) => r.type)).toEqual(['payment.started', 'payment.settled']);
  });

  it('a new engine resumes polling a pending deposit from the log; a failure is the persistent red Transaction Failed', async () => {
    const name = `money-engine-${++n}`;
    const first = newEngine(name);
    await first.whenStarted();
    await first.refreshSession();
    const made = await first.createPayment('EUR', '5');
    if (!made.ok) throw new Error(made.error);
    await first.dispose();
    engines.splice(engines.indexOf(first), 1);
    await press(made.transaction.id, 'fail');
    const second = newEngine(name);
    const w = await wallet(second, (v) => v.payments[0]?.status === 'failed');
    expect(w.pending).toBeNull();
    const failed = await notice(second, 'Transaction Failed');
    expect(failed).toMatchObject({ tone: 'red', durationMs: null });
  });

  it('an error notice closes once its cause is resolved: a later paid deposit closes Transaction Failed, a created invitation closes Invalid expiry date', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    const failedPayment = await e.createPayment('USD', '3');
    if (!failedPayment.ok) throw new Error(failedPayment.error);
    await press(failedPayment.transaction.id, 'fail');
    await notice(e, 'Transaction Failed');
    const paid = await e.createPayment('USD', '4');
    if (!paid.ok) throw new Error(paid.error);
    await press(paid.transaction.id, 'pay');
    await notice(e, 'Deposit received');
    expect(e.notices$.value.map((x) => x.title)).not.toContain('Transaction Failed');

    expect(await e.createInvitation({ amount: '1', currency: 'USD', recipientName: '', expiresAt: Date.now() - 3_600_000 })).toEqual({ ok: false, error: 'Invalid expiry date' });
    await notice(e, 'Invalid expiry date');
    // Other notices (not about invitations) stay.
    e.notify({ title: 'Unrelated', text: '', tone: 'red', durationMs: null });
    expect(await e.createInvitation({ amount: '1', currency: 'USD', recipientName: '', expiresAt: Date.now() + 3_600_000 })).toMatchObject({ ok: true });
    expect(e.notices$.value.map((x) => x.title)).toEqual(['Deposit received', 'Unrelated']);
  });

  it('validation and failures raise the spec strings', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    expect(await e.createPayment('USD', '0.5')).toEqual({ ok: false, error: 'Amount must be between $1 and $2000' });
    expect(await e.createPayment('USD', '1e-30')).toEqual({ ok: false, error: 'Invalid payment amount' });
    expect(await e.createPayment('BTC', '1')).toEqual({ ok: false, error: 'Payment limits not loaded' });

    expect(await e.createInvitation({ amount: '5', currency: 'USD', recipientName: '', expiresAt: Date.now() + 3_600_000 })).toEqual({ ok: false, error: 'Insufficient balance' });
    expect(await notice(e, 'Insufficient balance')).toMatchObject({ tone: 'orange', durationMs: 5000, text: 'Add funds to your balance and try again' });
    expect(await e.redeemInvitation('')).toEqual({ ok: false, error: 'Missing redeem code' });
    expect(await e.redeemInvitation('NOSUCHCODE')).toEqual({ ok: false, error: 'Invitation could not be redeemed' });
    // The support address is known without the Deposit dialog having asked for the payment methods first (issue 16).
    expect(await notice(e, 'Invitation could not be redeemed')).toMatchObject({ text: 'Please contact support at support@parley.invalid.' });

    expect(await e.convertNanoToUsd()).toEqual({ ok: false, error: 'Unable to convert nano to USD' });
    expect(await notice(e, 'Unable to convert nano to USD')).toMatchObject({ tone: 'red' });
    expect(await e.setRechargeSettings({ enabled: true, threshold: '5', target: '1' })).toEqual({ ok: false, error: 'Unable to set auto-recharge settings' });
    expect(await e.nanoPrice()).toBe(1);
    const rates = await e.fiatRates();
    expect(rates).toMatchObject({ eurPerUsd: 0.92, gbpPerUsd: 0.79, state: 'loaded' });
    expect(await e.fiatRates()).toBe(rates);
  });

  it('nano price: the gateway\'s when it gives one; the fallback 1 when it answers an error or no usable price', async () => {
    const e = newEngine();
    await e.whenStarted();
    overrides.set('/get-nano-price', json({ latestPrice: 0.85 }));
    expect(await e.nanoPrice()).toBe(0.85);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      overrides.set('/get-nano-price', json({ error: 'UPSTREAM', message: 'price feed down' }, 503));
      expect(await e.nanoPrice()).toBe(1);
      overrides.set('/get-nano-price', json({}));
      expect(await e.nanoPrice()).toBe(1);
      overrides.set('/get-nano-price', json({ latestPrice: -3 }));
      expect(await e.nanoPrice()).toBe(1);
      // Each fallback is logged (spec 001 section 8), never a notice.
      expect(warn).toHaveBeenCalledTimes(3);
      expect(e.notices$.value).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('fiat rates are cached 60 s: asked once within the minute, again after it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-24T12:00:00Z'));
    const e = newEngine();
    await e.whenStarted();
    const fiatAsks = () => asked.filter((p) => p === '/api/get-fiat-prices').length;
    const before = fiatAsks();
    const first = await e.fiatRates();
    expect(first).toMatchObject({ eurPerUsd: 0.92, state: 'loaded', timestamp: Date.parse('2026-11-24T12:00:00Z') });
    vi.setSystemTime(new Date('2026-11-24T12:00:59.999Z'));
    expect(await e.fiatRates()).toBe(first);
    expect(fiatAsks()).toBe(before + 1);
    vi.setSystemTime(new Date('2026-11-24T12:01:00Z'));
    const second = await e.fiatRates();
    expect(fiatAsks()).toBe(before + 2);
    expect(second).not.toBe(first);
    expect(second).toMatchObject({ state: 'loaded', timestamp: Date.parse('2026-11-24T12:01:00Z') });
  });

  it('clearSession resets every session field; a recovered session goes through it before the new one shows', async () => {
    const a = newEngine();
    await a.whenStarted();
    await a.refreshSession();
    const oldId = a.session$.value.session!.id;
    await gateway.ledger.credit(oldId, { key: `clear-seed-${oldId}`, usdMicro: 2_000_000n });
    const code = await a.createRecoveryCode();
    if (!code.ok) throw new Error(code.error);
    await a.refreshSession();
    expect(a.session$.value.canUsePaidModels).toBe(true);
    a.session$.next({ ...a.session$.value, error: 'an earlier refresh failed' });
    a.clearSession();
    expect(a.session$.value).toEqual({ session: null, canUsePaidModels: false, error: null });

    // Another browser: its own session, then the recovered one, with nothing of its own in between.
    jar.forget();
    const b = newEngine();
    await b.whenStarted();
    await b.refreshSession();
    const ownId = b.session$.value.session!.id;
    expect(ownId).not.toBe(oldId);
    const seen: (string | null)[] = [];
    const sub = b.session$.subscribe((v) => seen.push(v.session?.id ?? null));
    expect(await b.recoverSession(code.code)).toEqual({ ok: true });
    sub.unsubscribe();
    expect(seen).toEqual([ownId, null, oldId]);
    expect(b.session$.value).toMatchObject({ canUsePaidModels: true, error: null, session: { usd_balance: '2.000000' } });
  });

  it('the display currency is kept by the session and shown by the next refresh', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    expect(e.session$.value.session?.displayCurrency).toBe('USD');
    expect(await e.setDisplayCurrency('XNO')).toEqual({ ok: true });
    expect(e.session$.value.session?.displayCurrency).toBe('XNO');
  });

  it('converts nano to USD with the green notice', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    const id = e.session$.value.session!.id;
    await gateway.ledger.credit(id, { key: `nano-seed-${id}`, nanoRaw: 2n * 10n ** 30n });
    expect(await e.convertNanoToUsd('0.5')).toEqual({ ok: true, amount: '0.500000' });
    // The spec's '{n} XNO converted to USD' with n trimmed (issue 16 item 7), and the dollars with 2 decimals.
    expect(await notice(e, '0.5 XNO converted to USD')).toMatchObject({ tone: 'green', text: '$0.50 added to your USD balance.' });
    expect(e.session$.value.session).toMatchObject({ usd_balance: '0.500000', nano_balance: '1.500000', currency: 'USD' });
  });

  it('a Daimo-style deposit is redeemed by the engine; a refused redeem is the persistent red Payment Failed with the id', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    const ok = await e.createPayment('USDC', '3', 'BASE');
    if (!ok.ok) throw new Error(ok.error);
    expect(ok.transaction.paymentNonce).toBeTruthy();
    // The payment store's selectedNetwork and usdEquivalentValue are kept on the deposit (and in the log).
    expect((await wallet(e, (w) => w.pending?.id === ok.transaction.id)).pending).toMatchObject({ ticker: 'USDC', network: 'BASE', usdEquivalent: '3.00' });
    const logged = await e.db.events.where('type').equals('payment.started').last();
    expect(logged?.payload).toMatchObject({ network: 'BASE', usdEquivalent: '3.00' });
    await press(ok.transaction.id, 'pay');
    await wallet(e, (w) => w.payments.find((p) => p.id === ok.transaction.id)?.status === 'completed');
    await notice(e, 'Deposit received');
    expect(e.session$.value.session?.usd_balance).toBe('3.000000');

    const bad = await e.createPayment('USDT', '2', 'ARBITRUM');
    if (!bad.ok) throw new Error(bad.error);
    // The gateway no longer recognises the nonce the engine holds: the redeem is refused.
    await gateway.db.query(`UPDATE payment_transactions SET payment_nonce = 'changed-elsewhere-000000' WHERE id = $1`, [bad.transaction.id]);
    await press(bad.transaction.id, 'pay');
    const n = await notice(e, 'Payment Failed');
    expect(n).toMatchObject({ tone: 'red', durationMs: null });
    expect(n.text).toBe(`Unable to redeem Daimo payment. Please reach out to support at support@parley.invalid and provide the following payment id: ${bad.transaction.id}`);
    await wallet(e, (w) => w.payments.find((p) => p.id === bad.transaction.id)?.status === 'failed');
    expect(e.notices$.value.some((x) => x.title === 'Transaction Failed')).toBe(false);
  });

  it('changing the nano receiving flag clears pendingTransaction; the deposit is still polled and credited', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    const made = await e.createPayment('USD', '7');
    if (!made.ok) throw new Error(made.error);
    expect((await wallet(e, (w) => w.pending?.id === made.transaction.id)).nanoReceiving).toBe('deposit');
    // A return address that is not a nano account changes nothing.
    expect(await e.setNanoReceiving('return', 'nano_not-an-address')).toEqual({ ok: false, error: 'That is not a nano address. It starts with nano_ and has 65 characters.' });
    const badChecksum = RETURN_ADDRESS.slice(0, -1) + (RETURN_ADDRESS.endsWith('1') ? '3' : '1');
    expect(await e.setNanoReceiving('return', badChecksum)).toEqual({ ok: false, error: 'That is not a nano address. It starts with nano_ and has 65 characters.' });
    expect(e.money.wallet$.value.pending?.id).toBe(made.transaction.id);
    // The user's own address: kept by the gateway as the session's nanoReturnAddress; pendingTransaction cleared.
    expect(await e.setNanoReceiving('return', RETURN_ADDRESS)).toEqual({ ok: true });
    expect(e.money.wallet$.value).toMatchObject({ nanoReceiving: 'return', pending: null });
    expect(e.session$.value.session?.nanoReturnAddress).toBe(RETURN_ADDRESS);
    // Back to the deposit address: cleared again (a deposit made meanwhile is the new pendingTransaction until then).
    const second = await e.createPayment('USD', '8');
    if (!second.ok) throw new Error(second.error);
    expect((await wallet(e, (w) => w.pending !== null)).pending?.id).toBe(second.transaction.id);
    expect(await e.setNanoReceiving('deposit')).toEqual({ ok: true });
    expect(e.money.wallet$.value).toMatchObject({ nanoReceiving: 'deposit', pending: null });
    // The first checkout, paid late, is still credited.
    await press(made.transaction.id, 'pay');
    await wallet(e, (w) => w.payments.find((p) => p.id === made.transaction.id)?.status === 'completed');
    await notice(e, 'Deposit received');
    expect(e.session$.value.session?.usd_balance).toBe('7.000000');
  });
});

describe("the payment store's transactionData and selectedCurrency (spec 001 section 3)", () => {
  it('transactionData is the deposit the Deposit flow made last, with its live status; the receiving flag leaves it', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    expect(e.money.wallet$.value).toMatchObject({ transactionData: null, selectedCurrency: 'USD' });
    const first = await e.createPayment('USD', '6');
    if (!first.ok) throw new Error(first.error);
    expect((await wallet(e, (w) => w.transactionData !== null)).transactionData).toMatchObject({ id: first.transaction.id, ticker: 'USD', amount: '6', status: 'pending', paymentLink: first.transaction.paymentLink });
    const second = await e.createPayment('USD', '9');
    if (!second.ok) throw new Error(second.error);
    expect((await wallet(e, (w) => w.transactionData?.id === second.transaction.id)).transactionData).toMatchObject({ amount: '9', status: 'pending' });
    // Changing the nano receiving flag clears pendingTransaction, not the Deposit flow's transaction.
    expect(await e.setNanoReceiving('return', RETURN_ADDRESS)).toEqual({ ok: true });
    expect(e.money.wallet$.value.pending).toBeNull();
    expect(e.money.wallet$.value.transactionData?.id).toBe(second.transaction.id);
    // Its status follows the poll: paid, it is completed (and the first deposit, paid too, does not replace it).
    await press(second.transaction.id, 'pay');
    await press(first.transaction.id, 'pay');
    await wallet(e, (w) => w.payments.filter((p) => p.status === 'completed').length === 2);
    expect(e.money.wallet$.value.transactionData).toMatchObject({ id: second.transaction.id, status: 'completed' });
  });

  it('selectedCurrency is set by the view and kept for every tab; anything but USD, EUR or GBP is refused', async () => {
    const e = newEngine();
    await e.whenStarted();
    expect(await e.setSelectedCurrency('EUR')).toEqual({ ok: true });
    expect(e.money.wallet$.value.selectedCurrency).toBe('EUR');
    expect(await e.setSelectedCurrency('XNO' as never)).toEqual({ ok: false, error: 'Amounts can be shown in USD, EUR, GBP.' });
    expect(await e.setSelectedCurrency('GBP')).toEqual({ ok: true });
    expect(e.money.wallet$.value.selectedCurrency).toBe('GBP');
  });
});

describe('account-merge-check (spec 001 section 7): the recovery-code prompt', () => {
  it('asks once the session holds a balance and has no recovery code; a saved code ends it in the wallet view', async () => {
    const checks = () => asked.filter((p) => p === '/auth/account-merge-check').length;
    const before = checks();
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    const id = e.session$.value.session!.id;
    // A new, empty session: nothing to carry to another browser yet.
    expect((await wallet(e, (w) => w.account !== null)).account).toEqual({ canMigrate: false, hasRecoveryCode: false });
    await gateway.ledger.credit(id, { key: `merge-seed-${id}`, usdMicro: 3_000_000n });
    // The balance rising above the paid-use threshold asks again, without any call from the view.
    await e.refreshSession();
    expect(e.session$.value.canUsePaidModels).toBe(true);
    expect((await wallet(e, (w) => w.account?.canMigrate === true)).account).toEqual({ canMigrate: true, hasRecoveryCode: false });
    expect(checks() - before).toBe(2);
    // Refreshes that change nothing ask nothing more.
    await e.refreshSession();
    expect(checks() - before).toBe(2);
    const made = await e.createRecoveryCode();
    expect(made.ok).toBe(true);
    expect(e.money.wallet$.value.account).toEqual({ canMigrate: false, hasRecoveryCode: true });
    // And the gateway agrees.
    expect(await e.accountMergeCheck()).toEqual({ canMigrate: false, hasRecoveryCode: true });
  });

  it('a failed check is logged only and leaves no prompt', async () => {
    overrides.set('/auth/account-merge-check', json({ error: 'UNAVAILABLE', message: 'down' }, 503));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith('account-merge-check failed', 'down'));
    expect(e.money.wallet$.value.account).toBeNull();
    expect(e.notices$.value.filter((n) => n.tone === 'red')).toEqual([]);
    warn.mockRestore();
  });
});

describe('the nano faucet in the engine', () => {
  it('a claim refreshes the session with a green notice; a refusal is an orange notice that says why', async () => {
    const e = newEngine();
    await e.whenStarted();
    await e.refreshSession();
    // This gateway has no faucet: the status says so and a claim is refused in plain words.
    expect(await e.faucetStatus()).toEqual({ enabled: false, amount: '0.1', claimed: false, empty: true });
    expect(await e.claimFaucet()).toEqual({ ok: false, error: FAUCET_TEXT.FAUCET_OFF });
    expect((await notice(e, FAUCET_TEXT.failedTitle)).tone).toBe('orange');
    overrides.set('/nano/faucet', json({ error: 'ADDRESS_USED', message: 'x' }, 409));
    expect(await e.claimFaucet()).toEqual({ ok: false, error: FAUCET_TEXT.ADDRESS_USED });
    overrides.set('/nano/faucet', json({ error: 'RATE_LIMITED', message: 'x' }, 429));
    expect(await e.claimFaucet()).toEqual({ ok: false, error: FAUCET_TEXT.RATE_LIMITED });
    // A credited claim: the session is asked again (the balance shows it) and the user is told.
    overrides.set('/nano/faucet', json({ amount: '0.1', nanoBalance: '0.100000' }));
    const sessionsAsked = asked.filter((p) => p === '/auth/local-session').length;
    expect(await e.claimFaucet()).toEqual({ ok: true, amount: '0.1' });
    expect(asked.filter((p) => p === '/auth/local-session').length).toBeGreaterThan(sessionsAsked);
    const ok = await notice(e, FAUCET_TEXT.claimedTitle);
    expect(ok).toMatchObject({ tone: 'green', text: '0.1 XNO was added to your balance.' });
  });
});
