/** payment.started / payment.settled: validation, the pure fold, replay order, and what the live queries reload. */
import { describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import { upcast } from '../../../src/events/upcasters';
import { checkPayload } from '../../../src/events/validate';
import { foldPayments, pendingPayments } from '../../../src/projections/payments';
import { PAYMENT_EXPIRY_MS, shownPaymentStatus } from '../../../src/protocol/payments';
import { changeOf } from '../../../src/worker/changes';

const started = (id: string, at: number): NewEvent =>
  makeEvent('payment.started', { id, ticker: 'USD', amount: '5', txId: `ref-${id}`, createdAt: at / 1000, paymentLink: `http://x/pay/test/${id}`, at }, `e-${id}`, at);
const settled = (id: string, status: 'completed' | 'failed' | 'expired', at: number): NewEvent => makeEvent('payment.settled', { id, status, at }, `s-${id}-${at}`, at);

describe('payment events', () => {
  it('are validated when read from outside', () => {
    expect(checkPayload('payment.started', started('a', 1).payload)).toBeNull();
    expect(checkPayload('payment.started', { id: 'a', ticker: 'USD' })).toMatch(/payload\.amount/);
    expect(checkPayload('payment.settled', { id: 'a', status: 'refunded', at: 1 })).toMatch(/status/);
    expect(upcast({ type: 'payment.settled', v: 1, id: 'x', at: 1, payload: { id: 'a', status: 'completed', at: 1 } }, { validate: true }).type).toBe('payment.settled');
  });

  it('fold: newest first, pending until settled, the first outcome stands, replay is deterministic', () => {
    const log = [started('a', 1000), started('b', 2000), settled('a', 'completed', 3000), settled('a', 'failed', 4000), started('a', 5000)];
    const s = foldPayments(log);
    expect(s.records.map((r) => [r.id, r.status])).toEqual([
      ['b', 'pending'],
      ['a', 'completed'],
    ]);
    expect(s.records[1]?.settledAt).toBe(3000);
    expect(pendingPayments(s).map((r) => r.id)).toEqual(['b']);
    expect(foldPayments(log)).toEqual(s);
    // Unrelated events change nothing.
    expect(foldPayments([...log, makeEvent('preferences.changed', { changes: {}, at: 6 }, 'p', 6)])).toEqual(s);
  });

  it('keep the network and USD value when the event has them; an older event without them replays as unknown', () => {
    const old = started('old', 1000);
    const withStore = makeEvent('payment.started', { id: 'new', ticker: 'USDT', amount: '2', txId: 'r', createdAt: 2, paymentLink: 'l', paymentNonce: 'n', network: 'ARBITRUM', usdEquivalent: '2.00', at: 2000 }, 'e-new', 2000);
    expect(checkPayload('payment.started', withStore.payload)).toBeNull();
    expect(checkPayload('payment.started', { ...withStore.payload, network: 5 })).toMatch(/payload\.network/);
    // The stored form of a v1 event from before these fields: upcast, validated and folded as it was.
    const raw = { type: 'payment.started', v: 1, id: 'e-old', at: 1000, payload: old.payload };
    const s = foldPayments([upcast(raw, { validate: true }), withStore]);
    expect(s.records.map((r) => [r.id, r.network, r.usdEquivalent])).toEqual([
      ['new', 'ARBITRUM', '2.00'],
      ['old', null, null],
    ]);
  });

  it('touch no conversation', () => {
    const c = changeOf([started('a', 1), settled('a', 'expired', 2)]);
    expect(c.conversations).toBe(false);
    expect(c.slugs.size).toBe(0);
  });
});

describe('the status a deposit shows', () => {
  it('a checkout still pending 30 minutes after it started shows Expired; settled ones keep their outcome', () => {
    const startedAt = 1_000_000;
    expect(shownPaymentStatus({ status: 'pending', startedAt }, startedAt + PAYMENT_EXPIRY_MS - 1)).toBe('pending');
    expect(shownPaymentStatus({ status: 'pending', startedAt }, startedAt + 30 * 60_000)).toBe('expired');
    expect(shownPaymentStatus({ status: 'completed', startedAt }, startedAt + 2 * PAYMENT_EXPIRY_MS)).toBe('completed');
    expect(shownPaymentStatus({ status: 'failed', startedAt }, startedAt + 2 * PAYMENT_EXPIRY_MS)).toBe('failed');
  });
});
