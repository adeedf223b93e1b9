/**
 * A paid reply's hold through the real route (POST /api/stream-gpt, fake upstream, in-memory PGlite): a maxTokens
 * above MAX_OUTPUT_TOKENS is held and sent upstream at the cap, and a reply whose charge fails says billingError in
 * its metadata (spec 000 section 8: not charged), its hold given back when it expires.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { MAX_OUTPUT_TOKENS } from '../../../src/server/money/reply-hold';
import { replyCostMicro } from '../../../src/server/money/amounts';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { chatBody, newSession, postStream, readStream } from './helpers';
import { expectLedgerBalanced } from './money-checks';

const PRICING = { 'paid-model': { input: '1.5', output: '3' } }; // USD per 1M tokens
const USAGE = { prompt_tokens: 1000, completion_tokens: 2000 }; // $0.0075

/** A ledger whose settle fails in the database (after the reserve went through). */
class FailingSettleLedger extends Ledger {
  override settle(): never {
    throw new Error('connection lost before COMMIT');
  }
}

let db: Db;
let up: FakeUpstream;

beforeAll(async () => {
  db = await openDatabase({ kind: 'memory' });
  up = await startFakeUpstream(textReply('paid words', { usage: USAGE }), { models: ['paid-model'] });
});
afterAll(async () => {
  await up.close();
  await db.close();
});
beforeEach(() => {
  up.requests.length = 0;
});

async function gateway(ledger: Ledger) {
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_PROVIDERS: JSON.stringify([{ name: 'fake', url: up.url, models: ['paid-model'], pricing: PRICING }]) });
  const catalogue = await Catalogue.create(config.upstreams, { offlineTokenDelayMs: 0, discoveryTimeoutMs: config.discoveryTimeoutMs, log: () => undefined });
  const logs: string[] = [];
  const app = createApp({ db, catalogue, ledger, settings: { stallMs: config.stallMs, cookieSecure: false, maxBodyBytes: config.maxBodyBytes, guards: config.guards }, log: (l) => logs.push(l) });
  const s = await newSession(app);
  await ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
  return { app, s, logs };
}

const holdsOf = (id: string) =>
  db.query<{ status: string; max: string; settled: string | null }>(`SELECT status, max_usd_micro::text AS max, settled_usd_micro::text AS settled FROM ledger_holds WHERE session_id = $1`, [id]);

describe('the reply hold through POST /api/stream-gpt', () => {
  it(`a maxTokens above ${MAX_OUTPUT_TOKENS} is held and sent upstream as ${MAX_OUTPUT_TOKENS}`, async () => {
    const ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
    const { app, s } = await gateway(ledger);
    const body = chatBody('paid-model', 'hi', { requestId: 'req-cap-tokens-1', maxTokens: 500_000 });
    const { body: text, meta } = await readStream(await postStream(app, s.cookie, body));
    expect(text).toBe('paid words');
    expect(up.requests).toHaveLength(1);
    expect(up.requests[0]?.body?.max_tokens).toBe(MAX_OUTPUT_TOKENS);
    const holds = await holdsOf(s.data.id);
    expect(holds).toHaveLength(1);
    // 'hi' estimates to 1 input token: 1 x 1.5 + 131072 x 3 micro-dollars, rounded up.
    const expected = replyCostMicro({ inputMicroPerM: 1_500_000n, outputMicroPerM: 3_000_000n }, 1, MAX_OUTPUT_TOKENS);
    expect(expected).toBe(393_218n);
    expect(BigInt(holds[0]?.max ?? '0')).toBe(expected);
    expect(holds[0]).toMatchObject({ status: 'settled', settled: '7500' });
    expect(meta.cost).toBe(0.0075);
    await expectLedgerBalanced(db, s.data.id);
  });

  it('a reply whose charge fails reports billingError in its metadata, is not charged, and its hold goes back when it expires', async () => {
    const ledger = new FailingSettleLedger(db, { nanoPriceUsdMicro: 1_000_000n });
    const { app, s, logs } = await gateway(ledger);
    const { body: text, meta } = await readStream(await postStream(app, s.cookie, chatBody('paid-model', 'hi', { requestId: 'req-billing-err-1' })));
    expect(text).toBe('paid words');
    expect(meta).toMatchObject({ billingError: true, cost: 0, isPartial: false });
    expect(meta.error).toBeUndefined();
    expect(logs.some((l) => l.includes('settle of') && l.includes('not charged'))).toBe(true);
    const charges = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [s.data.id]);
    expect(charges[0]?.n).toBe(0);
    // The hold stays until it expires (a settle may still be in doubt), then a sweep gives all of it back.
    expect((await holdsOf(s.data.id)).map((h) => h.status)).toEqual(['held']);
    await db.query(`UPDATE ledger_holds SET expires_at = now() - interval '1 second' WHERE session_id = $1`, [s.data.id]);
    await ledger.sweepExpiredHolds();
    expect((await ledger.balance(s.data.id)).usdMicro).toBe(1_000_000n);
    await expectLedgerBalanced(db, s.data.id);
  });
});
