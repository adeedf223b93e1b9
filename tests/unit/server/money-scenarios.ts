/**
 * The overspending scenarios of issue 5, shared by the PGlite suite (stream-money.test.ts) and the Postgres suite
 * (postgres.test.ts): many paid requests of one session at once, against a small balance. Whatever the database,
 * no reply may be delivered unpaid, the balance change must equal the sum of the charges, and the balance never
 * goes below zero. The fake upstream must count only the requests that got a reply (a refused one never reaches it).
 */
import { expect } from 'vitest';
import type { Hono } from 'hono';
import type { AppEnv } from '../../../src/server/http';
import type { Ledger } from '../../../src/server/money/ledger';
import type { Db } from '../../../src/server/db/types';
import type { FakeUpstream } from './fake-upstream';
import { chatBody, errorBody, postStream, readStream } from './helpers';
import { expectLedgerBalanced } from './money-checks';

export interface ParallelOutcome {
  delivered: number;
  refused: number;
  /**
   * 503 UPSTREAM_UNREACHABLE: on a loaded machine a reused keep-alive socket to the fake upstream is sometimes
   * reset. No reply, and its hold is given back; counted so the money checks still cover it.
   */
  unreachable: number;
  /** Replies delivered with a cost of 0, a billing error or an error: must stay 0. */
  unpaid: number;
  chargedMicro: bigint;
}

export interface ParallelOptions {
  app: Hono<AppEnv>;
  db: Db;
  ledger: Ledger;
  up: FakeUpstream;
  cookie: string;
  sessionId: string;
  model: string;
  count: number;
  maxTokens: number;
  content: string;
  tag: string;
}

/** Sends `count` paid requests at once and checks the money invariants; returns what happened. */
export async function parallelPaidRequests(o: ParallelOptions): Promise<ParallelOutcome> {
  const before = await o.ledger.balance(o.sessionId);
  const upstreamBefore = o.up.requests.length;
  const outcomes = await Promise.all(
    Array.from({ length: o.count }, async (_, i) => {
      const res = await postStream(o.app, o.cookie, chatBody(o.model, o.content, { requestId: `${o.tag}-${i}-xxxxxxxx`, maxTokens: o.maxTokens }));
      if (res.status === 402) {
        const b = await errorBody(res);
        expect(b.error).toBe('INSUFFICIENT_BALANCE');
        expect(b.requiredUsd).toMatch(/^\d+\.\d{6}$/);
        return { kind: 'refused' as const };
      }
      if (res.status === 503 && (await errorBody(res.clone())).error === 'UPSTREAM_UNREACHABLE') return { kind: 'unreachable' as const };
      expect(res.status, res.status === 200 ? '' : await res.text()).toBe(200);
      const { meta } = await readStream(res);
      return { kind: 'delivered' as const, meta };
    }),
  );
  const out: ParallelOutcome = { delivered: 0, refused: 0, unreachable: 0, unpaid: 0, chargedMicro: 0n };
  for (const r of outcomes) {
    if (r.kind === 'refused') {
      out.refused++;
      continue;
    }
    if (r.kind === 'unreachable') {
      out.unreachable++;
      continue;
    }
    out.delivered++;
    const cost = BigInt(Math.round((r.meta.cost ?? 0) * 1e6));
    if (cost <= 0n || r.meta.billingError === true || r.meta.error !== undefined) out.unpaid++;
    out.chargedMicro += cost;
  }
  const after = await o.ledger.balance(o.sessionId);
  expect(out.unpaid, 'replies delivered unpaid').toBe(0);
  expect(out.delivered).toBeGreaterThan(0);
  expect(out.delivered + out.refused + out.unreachable).toBe(o.count);
  expect(out.unreachable, 'upstream connections reset').toBeLessThanOrEqual(o.count / 10);
  expect(after.usdMicro >= 0n && after.nanoRaw >= 0n).toBe(true);
  expect(before.usdMicro - after.usdMicro, 'balance change = sum of charges').toBe(out.chargedMicro);
  // Every hold is closed again and the entries add up to the balance.
  const open = await o.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_holds WHERE session_id = $1 AND status = 'held'`, [o.sessionId]);
  expect(open[0]?.n).toBe('0');
  await expectLedgerBalanced(o.db, o.sessionId);
  // A refused request never reached the upstream.
  await o.up.settled();
  const asked = o.up.requests.length - upstreamBefore;
  expect(asked).toBeGreaterThanOrEqual(out.delivered);
  expect(asked).toBeLessThanOrEqual(out.delivered + out.unreachable);
  return out;
}
