/**
 * The $0 entries of free replies, written behind in batches (src/server/money/free-replies.ts): a free reply no
 * longer waits on the database, and the entries still count each reply exactly once.
 */
import { describe, expect, it } from 'vitest';
import { memoryDatabase } from './helpers';
import type { Queryable } from '../../../src/server/db/types';
import { FreeReplyLog } from '../../../src/server/money/free-replies';
import { Ledger } from '../../../src/server/money/ledger';
import { createSession } from '../../../src/server/sessions/store';

const database = memoryDatabase();

const replies = async (id: string): Promise<number> => Number((await database().query<{ n: number }>('SELECT num_replies AS n FROM sessions WHERE id = $1', [id]))[0]?.n);
const entries = async (id: string): Promise<number> =>
  Number((await database().query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge' AND applied_usd_micro = 0`, [id]))[0]?.n);

describe('free replies written behind', () => {
  it('a batch writes each reply once and counts it once, a key already in the ledger included', async () => {
    const log = new FreeReplyLog(database(), () => {}, 60_000);
    const a = (await createSession(database())).session.id;
    const b = (await createSession(database())).session.id;
    await new Ledger(database(), { nanoPriceUsdMicro: 1_000_000n }).charge(a, { key: `chat:${a}:old`, usdMicro: 0n, countReply: true });
    for (const k of ['r1', 'r2', 'r2', 'old']) log.record(a, `chat:${a}:${k}`, 'stream-gpt free');
    log.record(b, `chat:${b}:r1`, 'stream-gpt free');
    expect(log.pendingFor(a)).toBe(true);
    expect(await replies(a)).toBe(1); // nothing written before the batch
    await log.flushFor(a);
    expect(log.pendingFor(a) || log.pendingFor(b)).toBe(false);
    expect([await replies(a), await entries(a)]).toEqual([3, 3]);
    expect([await replies(b), await entries(b)]).toEqual([1, 1]);
  });

  it('a failed write keeps the entries for the next batch; a session deleted meanwhile loses only its own', async () => {
    let fail = true;
    const flaky: Queryable = {
      query: (sql, params) => {
        if (fail) {
          fail = false;
          return Promise.reject(new Error('connection reset'));
        }
        return database().query(sql, params);
      },
    };
    const lines: string[] = [];
    const log = new FreeReplyLog(flaky, (l) => lines.push(l), 60_000);
    const kept = (await createSession(database())).session.id;
    const gone = (await createSession(database())).session.id;
    log.record(kept, `chat:${kept}:x`, null);
    log.record(gone, `chat:${gone}:x`, null);
    await log.flush();
    expect(lines.join('\n')).toMatch(/writing 2 \$0 entries failed \(kept for the next batch\): connection reset/);
    expect(await replies(kept)).toBe(0);
    await database().query('DELETE FROM sessions WHERE id = $1', [gone]);
    await log.close();
    expect([await replies(kept), await entries(kept)]).toEqual([1, 1]);
    expect(await entries(gone)).toBe(0);
  });
});
