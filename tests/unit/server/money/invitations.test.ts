import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invitation } from '../../../../src/protocol/payments';
import { expectLedgerBalanced } from '../money-checks';
import { balanceOf, call, moneyGateway, type MoneyGateway } from './helpers';

let gw: MoneyGateway;
beforeAll(async () => {
  gw = await moneyGateway();
});
afterAll(async () => {
  await gw.close();
});

const HOUR = 3_600_000;

async function funded(usdMicro: bigint, nanoRaw = 0n) {
  const s = await gw.session();
  await gw.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro, nanoRaw });
  return s;
}

async function create(cookie: string, body: Record<string, unknown>) {
  return call<{ invitation: Invitation; error?: string }>(gw.app, 'POST', '/invitations/create', cookie, body);
}

describe('invitations', () => {
  it('create reserves the amount from the creator; the list shows it; delete refunds it', async () => {
    const s = await funded(5_000_000n);
    const r = await create(s.cookie, { amount: '2', currency: 'USD', recipientName: 'Grace', expiresAt: Date.now() + HOUR });
    expect(r.status).toBe(200);
    expect(r.body.invitation).toMatchObject({ amount: '2.000000', currency: 'USD', recipientName: 'Grace', status: 'active' });
    expect(r.body.invitation.redeemCode).toMatch(/^[A-Z2-9]{16}$/);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(3_000_000n);
    const list = await call<{ invitations: Invitation[] }>(gw.app, 'GET', '/api/invitations', s.cookie);
    expect(list.body.invitations.map((i) => i.redeemCode)).toEqual([r.body.invitation.redeemCode]);
    expect((await call(gw.app, 'DELETE', `/invitations/delete/${r.body.invitation.redeemCode}`, s.cookie)).status).toBe(200);
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(5_000_000n);
    expect((await call<{ invitations: Invitation[] }>(gw.app, 'GET', '/api/invitations', s.cookie)).body.invitations).toEqual([]);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('every error code of section 8', async () => {
    const s = await funded(1_000_000n);
    const other = await gw.session();
    expect((await create(s.cookie, { amount: '5', currency: 'USD', expiresAt: Date.now() + HOUR })).body.error).toBe('InsufficientBalance');
    expect((await create(s.cookie, { amount: '0', currency: 'USD', expiresAt: Date.now() + HOUR })).body.error).toBe('InvalidAmount');
    expect((await create(s.cookie, { amount: '0.5', currency: 'USD', expiresAt: Date.now() - 1 })).body.error).toBe('InvalidExpiresAt');
    expect((await create(s.cookie, { amount: '0.5', currency: 'USD', expiresAt: 'soon' })).body.error).toBe('InvalidExpiresAt');
    expect((await create(s.cookie, { amount: '0.5', currency: 'USD', expiresAt: Date.now() + 400 * 24 * HOUR })).body.error).toBe('InvalidExpiresAt');
    const made = await create(s.cookie, { amount: '0.5', currency: 'USD', expiresAt: Date.now() + HOUR });
    const code = made.body.invitation.redeemCode;
    expect((await call(gw.app, 'POST', '/invitations/redeem', other.cookie, {})).body.error).toBe('MissingRedeemCode');
    expect((await call(gw.app, 'POST', '/invitations/redeem', other.cookie, { redeemCode: 'NOPE' })).body.error).toBe('InviteNotFound');
    // Someone else cannot change or delete it.
    expect((await call(gw.app, 'POST', '/invitations/update', other.cookie, { redeemCode: code, amount: '0.1' })).body.error).toBe('InviteNotFound');
    expect((await call(gw.app, 'DELETE', `/invitations/delete/${code}`, other.cookie)).body.error).toBe('InviteNotFound');
    const redeemed = await call(gw.app, 'POST', '/invitations/redeem', other.cookie, { redeemCode: code.toLowerCase() });
    expect(redeemed.body).toEqual({ success: true, amount: '0.500000', currency: 'USD' });
    expect((await call(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode: code, amount: '0.1' })).body.error).toBe('InviteRedeemed');
    expect((await call(gw.app, 'DELETE', `/invitations/delete/${code}`, s.cookie)).body.error).toBe('InviteRedeemed');
    expect((await call(gw.app, 'POST', '/invitations/redeem', other.cookie, { redeemCode: code })).body.error).toBe('InviteNotFound');
    expect((await balanceOf(gw.db, other.data.id)).usd).toBe(500_000n);
    expect((await call<{ invitations: Invitation[] }>(gw.app, 'GET', '/api/invitations', s.cookie)).body.invitations[0]?.status).toBe('redeemed');
  });

  it('update raises or lowers the reservation and changes name and expiry', async () => {
    const s = await funded(3_000_000n);
    const made = await create(s.cookie, { amount: '1', currency: 'USD', recipientName: 'A', expiresAt: Date.now() + HOUR });
    const code = made.body.invitation.redeemCode;
    const up = await call<{ invitation: Invitation }>(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode: code, amount: '2.5', recipientName: 'B' });
    expect(up.body.invitation).toMatchObject({ amount: '2.500000', recipientName: 'B' });
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(500_000n);
    expect((await call(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode: code, amount: '4' })).body.error).toBe('InsufficientBalance');
    const later = Date.now() + 5 * HOUR;
    const down = await call<{ invitation: Invitation }>(gw.app, 'POST', '/invitations/update', s.cookie, { redeemCode: code, amount: '0.25', expiresAt: later });
    expect(down.body.invitation).toMatchObject({ amount: '0.250000', expiresAt: later });
    expect((await balanceOf(gw.db, s.data.id)).usd).toBe(2_750_000n);
    await expectLedgerBalanced(gw.db, s.data.id);
  });

  it('nano invitations reserve raw; expiry refunds the creator and leaves nothing to redeem', async () => {
    const s = await funded(0n, 3n * 10n ** 30n);
    const made = await create(s.cookie, { amount: '1.5', currency: 'XNO', expiresAt: Date.now() + HOUR });
    expect(made.body.invitation).toMatchObject({ amount: '1.500000', currency: 'XNO' });
    expect((await balanceOf(gw.db, s.data.id)).nano).toBe(15n * 10n ** 29n);
    await gw.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE redeem_code = $1`, [made.body.invitation.redeemCode]);
    const other = await gw.session();
    expect((await call(gw.app, 'POST', '/invitations/redeem', other.cookie, { redeemCode: made.body.invitation.redeemCode })).body.error).toBe('NoAmountToRedeem');
    await gw.money.sweep();
    expect((await balanceOf(gw.db, s.data.id)).nano).toBe(3n * 10n ** 30n);
    expect((await call<{ invitations: Invitation[] }>(gw.app, 'GET', '/api/invitations', s.cookie)).body.invitations[0]?.status).toBe('expired');
    expect((await call(gw.app, 'POST', '/invitations/redeem', other.cookie, { redeemCode: made.body.invitation.redeemCode })).body.error).toBe('NoAmountToRedeem');
    await expectLedgerBalanced(gw.db, s.data.id);
  });
});
