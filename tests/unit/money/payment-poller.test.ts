/** The payment polling pipeline on a virtual clock: 3 s, 200 attempts, expiry after 30 minutes, 404 rules. */
import { describe, expect, it } from 'vitest';
import type { PaymentRecord } from '../../../src/projections/payments';
import { pollPayment, type PollAnswer, type PollHost } from '../../../src/worker/rooms/money/payment-poller';

function record(ticker: string, startedAt: number, paymentNonce: string | null = null): PaymentRecord {
  return { id: 'tx_1', ticker, amount: '5', txId: 'r', createdAt: startedAt / 1000, paymentLink: 'l', paymentNonce, network: null, usdEquivalent: null, status: 'pending', startedAt, settledAt: null };
}

function host(answers: (n: number, now: number) => PollAnswer, start = 0, redeems = true) {
  let now = start;
  const calls: number[] = [];
  const settled: string[] = [];
  const redeemed: string[] = [];
  const h: PollHost = {
    status: async () => {
      calls.push(now);
      return answers(calls.length, now);
    },
    settle: async (_r, s) => {
      settled.push(s);
    },
    redeem: async (r) => {
      redeemed.push(r.id);
      return redeems;
    },
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  return { h, calls, settled, redeemed, now: () => now };
}

const pending: PollAnswer = { kind: 'status', status: 'pending' };

describe('payment polling', () => {
  it('asks every 3 s, at most 200 times, then expires the transaction at 30 minutes after one last look', async () => {
    const t = host(() => pending);
    const out = await pollPayment(t.h, record('USD', 0), new AbortController().signal);
    expect(out).toBe('expired');
    expect(t.settled).toEqual(['expired']);
    // 200 polls 3 s apart, then the last look at the expiry.
    expect(t.calls).toHaveLength(201);
    expect(t.calls.slice(0, 3)).toEqual([0, 3000, 6000]);
    expect(t.calls[199]).toBe(199 * 3000);
    expect(t.calls[200]).toBe(30 * 60_000);
  });

  it('completed, failed and expired answers settle at once, once', async () => {
    for (const status of ['completed', 'failed', 'expired'] as const) {
      const t = host((n) => (n === 4 ? { kind: 'status', status } : pending));
      expect(await pollPayment(t.h, record('USD', 0), new AbortController().signal)).toBe(status);
      expect(t.settled).toEqual([status]);
      expect(t.calls).toHaveLength(4);
    }
  });

  it('a 404 means pending for SOL and USDC, and failed for the others; network errors keep polling', async () => {
    for (const ticker of ['SOL', 'USDC']) {
      const t = host((n) => (n < 10 ? { kind: 'notFound' } : { kind: 'status', status: 'completed' }));
      expect(await pollPayment(t.h, record(ticker, 0), new AbortController().signal)).toBe('completed');
      expect(t.calls).toHaveLength(10);
    }
    const btc = host(() => ({ kind: 'notFound' }));
    expect(await pollPayment(btc.h, record('BTC', 0), new AbortController().signal)).toBe('failed');
    expect(btc.calls).toHaveLength(1);
    const flaky = host((n) => (n < 5 ? { kind: 'error' } : { kind: 'status', status: 'completed' }));
    expect(await pollPayment(flaky.h, record('USD', 0), new AbortController().signal)).toBe('completed');
  });

  it('an engine taking over counts the attempts already made: 20 minutes in, it only waits for the expiry', async () => {
    const t = host(() => pending, 20 * 60_000);
    await pollPayment(t.h, record('USD', 0), new AbortController().signal);
    expect(t.calls).toEqual([30 * 60_000]);
    const half = host(() => pending, 300 * 1000);
    await pollPayment(half.h, record('USD', 0), new AbortController().signal);
    expect(half.calls).toHaveLength(100 + 1);
  });

  it('stops when cancelled, recording nothing', async () => {
    const c = new AbortController();
    const t = host((n) => {
      if (n === 3) c.abort();
      return pending;
    });
    expect(await pollPayment(t.h, record('USD', 0), c.signal)).toBeNull();
    expect(t.settled).toEqual([]);
  });

  it('a Daimo-style deposit the provider says is paid is redeemed once: completed, or failed when the redeem is refused', async () => {
    const paid = (n: number): PollAnswer => (n >= 3 ? { kind: 'status', status: 'pending', redeemable: true } : pending);
    const ok = host(paid);
    expect(await pollPayment(ok.h, record('USDC', 0, 'nonce'), new AbortController().signal)).toBe('completed');
    expect(ok.redeemed).toEqual(['tx_1']);
    expect(ok.settled).toEqual(['completed']);
    const refused = host(paid, 0, false);
    expect(await pollPayment(refused.h, record('USDC', 0, 'nonce'), new AbortController().signal)).toBe('failed');
    expect(refused.redeemed).toHaveLength(1);
  });
});
