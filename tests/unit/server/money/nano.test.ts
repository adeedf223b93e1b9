/**
 * Nano deposits through the gateway against a fake node (RPC + websocket): addresses from the operator's seed,
 * every credit confirmed against the node's RPC, one exact credit per block whatever the socket sends.
 */
import { deriveAddress, derivePublicKey, deriveSecretKey } from 'nanocurrency';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { NanoDepositSocket, type SocketLike } from '../../../../src/worker/rooms/money/nano-socket';
import { expectLedgerBalanced } from '../money-checks';
import { startFakeNode, type FakeNode } from '../../nano/fake-node';
import type { PaymentLimits } from '../../../../src/protocol/payments';
import { balanceOf, call, creditsOf, moneyGateway, type MoneyGateway } from './helpers';

const SEED = 'A'.repeat(64);
const REP = 'nano_1ipx847tk8o46pwxt5qjdbncjqcbwcc1rrmqnkztrfjy5k7z4imsrata9est';
let node: FakeNode;
let gw: MoneyGateway;

beforeAll(async () => {
  node = await startFakeNode();
  gw = await moneyGateway({ PARLEY_NANO_SEED: SEED, PARLEY_NANO_RPC_URLS: `http://127.0.0.1:9/,${node.rpcUrl}`, PARLEY_NANO_WS_URLS: node.wsUrl });
});
afterAll(async () => {
  await gw.close();
  await node.close();
});

async function addressOf(cookie: string): Promise<string> {
  const r = await call<{ address: string; websockets: string[] }>(gw.app, 'POST', '/nano/deposit-address', cookie);
  expect(r.status).toBe(200);
  expect(r.body.websockets).toEqual([node.wsUrl]);
  return r.body.address;
}

describe('nano deposits', () => {
  it('XNO limits follow section 9: from 0.000001 XNO, up to 2000 USD of it', async () => {
    const s = await gw.session();
    const xno = await call<PaymentLimits>(gw.app, 'GET', '/api/transaction/limits/XNO', s.cookie);
    expect(xno.status).toBe(200);
    // The nano price is 1 USD here (PARLEY_NANO_USD_PRICE's default in tests): 2000 USD is 2000 XNO.
    expect(xno.body).toMatchObject({ minimum: '0.000001', maximum: '2000', fiatEquivalentMinimum: '0.000001', fiatEquivalentMaximum: '2000', provider: 'nano' });
  });

  it('each session gets its own address from the seed, kept on the session', async () => {
    const a = await gw.session();
    const b = await gw.session();
    const addrA = await addressOf(a.cookie);
    expect(await addressOf(a.cookie)).toBe(addrA);
    const addrB = await addressOf(b.cookie);
    expect(addrB).not.toBe(addrA);
    const derived = [1, 2].map((i) => deriveAddress(derivePublicKey(deriveSecretKey(SEED, i)), { useNanoPrefix: true }));
    expect([addrA, addrB].sort()).toEqual(derived.sort());
    expect((await call<{ data: { nanoDepositAddress: string } }>(gw.app, 'GET', '/auth/local-session', a.cookie)).body.data.nanoDepositAddress).toBe(addrA);
  });

  it('confirms against the RPC: 1 raw and 2^128-1 raw exact, duplicates once, other accounts and forged hashes nothing', async () => {
    const s = await gw.session();
    const me = await addressOf(s.cookie);
    const one = node.addSend(me, 1n);
    const max = node.addSend(me, 2n ** 128n - 1n);
    const elsewhere = node.addSend(REP, 10n ** 30n);
    const unconfirmed = node.addSend(me, 10n ** 30n, { confirmed: false });
    const confirm = (hash: string) => call(gw.app, 'POST', '/nano/confirm', s.cookie, { hash });
    expect((await confirm(one.hash)).body).toEqual({ credited: true, amount: '0.000000' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => confirm(max.hash)));
    expect(answers.filter((a) => a.body.credited === true)).toHaveLength(1);
    expect((await confirm(elsewhere.hash)).status).toBe(409);
    expect((await confirm(unconfirmed.hash)).status).toBe(409);
    expect((await confirm('F'.repeat(64))).status).toBe(404);
    expect((await confirm('not-a-hash')).status).toBe(400);
    expect((await balanceOf(gw.db, s.data.id)).nano).toBe(1n + 2n ** 128n - 1n);
    // Another session cannot claim a send to this one's address.
    const thief = await gw.session();
    await addressOf(thief.cookie);
    expect((await call(gw.app, 'POST', '/nano/confirm', thief.cookie, { hash: one.hash })).status).toBe(409);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('the engine socket and the gateway together: one credit per block through duplicates, disorder and a drop', async () => {
    const s = await gw.session();
    const me = await addressOf(s.cookie);
    const confirmations: Promise<unknown>[] = [];
    const socket = new NanoDepositSocket({
      urls: [node.wsUrl],
      account: me,
      open: (url) => {
        const ws = new WebSocket(url);
        ws.on('error', () => {});
        return ws as unknown as SocketLike;
      },
      onSend: (send) => confirmations.push(call(gw.app, 'POST', '/nano/confirm', s.cookie, { hash: send.hash })),
      onState: () => {},
      backoffMs: () => 20,
    });
    socket.start();
    const wait = async (check: () => boolean) => {
      for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    await wait(() => node.subscriptions.some((m) => JSON.stringify(m).includes(me)) && node.sockets.size > 0);
    const blocks = [node.addSend(me, 3n), node.addSend(me, 5n), node.addSend(me, 7n)];
    for (const b of [blocks[2]!, blocks[0]!, blocks[2]!, blocks[1]!, blocks[0]!]) node.confirm(b);
    node.confirm(node.addSend(REP, 100n));
    await wait(() => confirmations.length === 3);
    node.dropSockets();
    await wait(() => node.sockets.size > 0);
    for (const b of blocks) node.confirm(b);
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all(confirmations);
    socket.stop();
    expect(confirmations).toHaveLength(3);
    expect((await balanceOf(gw.db, s.data.id)).nano).toBe(15n);
    expect(await creditsOf(gw.db, s.data.id, 'nano:')).toBe(3);
  });

  it('receivables are credited once and received into the account; the representative changes with a signed block', async () => {
    const s = await gw.session();
    const me = await addressOf(s.cookie);
    const first = node.addSend(me, 2n * 10n ** 30n);
    expect((await call(gw.app, 'POST', '/get-representative', s.cookie)).body.representative).toBe(gw.money.cfg.nano?.representative);
    // Before the account is opened the choice is kept, and the open block carries it.
    expect((await call(gw.app, 'POST', '/nano/change-representative', s.cookie, { representative: REP })).body).toEqual({ success: true, representative: REP, hash: null });
    const r = await call<{ receivable: string; credited: string[] }>(gw.app, 'POST', '/check-receivables', s.cookie);
    expect(r.body).toEqual({ receivable: '2.000000', credited: [first.hash] });
    expect(node.processed.at(-1)).toMatchObject({ subtype: 'open', representative: REP, balance: (2n * 10n ** 30n).toString(), link: first.hash });
    expect((await call(gw.app, 'POST', '/check-receivables', s.cookie)).body).toEqual({ receivable: '0.000000', credited: [] });
    const second = node.addSend(me, 5n);
    await call(gw.app, 'POST', '/nano/confirm', s.cookie, { hash: second.hash });
    expect((await call(gw.app, 'POST', '/check-receivables', s.cookie)).body).toEqual({ receivable: '0.000000', credited: [] });
    expect(node.processed.at(-1)).toMatchObject({ subtype: 'receive', balance: (2n * 10n ** 30n + 5n).toString() });
    expect((await balanceOf(gw.db, s.data.id)).nano).toBe(2n * 10n ** 30n + 5n);
    const other = 'nano_3arg3asgtigae3xckabaaewkx3bzsh7nwz7jkmjos79ihyaxwphhm6qgjps4';
    const changed = await call<{ hash: string }>(gw.app, 'POST', '/nano/change-representative', s.cookie, { representative: other });
    expect(changed.body.hash).toMatch(/^[0-9A-F]{64}$/);
    expect(node.processed.at(-1)).toMatchObject({ subtype: 'change', representative: other });
    expect((await call(gw.app, 'POST', '/get-representative', s.cookie)).body.representative).toBe(other);
    expect((await call(gw.app, 'POST', '/nano/change-representative', s.cookie, { representative: 'nano_' + '1'.repeat(60) })).status).toBe(400);
  });

  it('a recovery code brings the same deposit address and nano balance into another browser', async () => {
    const s = await gw.session();
    const me = await addressOf(s.cookie);
    const sent = node.addSend(me, 9n);
    await call(gw.app, 'POST', '/nano/confirm', s.cookie, { hash: sent.hash });
    const { body } = await call<{ code: string }>(gw.app, 'POST', '/api/session/recovery-code', s.cookie);
    const res = await gw.app.request('/auth/recover', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: body.code }) });
    const other = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(await addressOf(other)).toBe(me);
    const data = (await call<{ data: { nanoDepositAddress: string; id: string } }>(gw.app, 'GET', '/auth/local-session', other)).body.data;
    expect(data).toMatchObject({ nanoDepositAddress: me, id: s.data.id });
    expect((await balanceOf(gw.db, data.id)).nano).toBe(9n);
  });
});
