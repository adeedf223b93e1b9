/**
 * A gateway that dies with holds open: the next gateway on the same database gives their money back at startup
 * (src/server/money/sweeper.ts, started by startGateway).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/server/db/open';
import { Ledger } from '../../../src/server/money/ledger';
import { createSession } from '../../../src/server/sessions/store';
import { startGateway } from '../../../src/server/start';

const dir = mkdtempSync(join(tmpdir(), 'parley-holds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hold expiry across a gateway restart', () => {
  it('holds left open by a dead gateway are released by the next one at startup', async () => {
    const dataDir = join(dir, 'data');
    // The "dead" gateway: it reserved two holds (one already past its expiry) and never settled them.
    const db = await openDatabase({ kind: 'pglite', dataDir });
    const ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
    const { session } = await createSession(db);
    await ledger.credit(session.id, { key: `seed:${session.id}`, usdMicro: 100_000n });
    await ledger.reserve(session.id, { key: `chat:${session.id}:dead-1`, maxUsdMicro: 70_000n, ttlMs: 0 });
    await ledger.reserve(session.id, { key: `chat:${session.id}:alive-1`, maxUsdMicro: 20_000n, ttlMs: 3_600_000 });
    expect((await ledger.balance(session.id)).usdMicro).toBe(10_000n);
    await db.close();

    const gw = await startGateway({ port: 0, dataDir, clientDir: null, inheritEnv: false, env: {}, log: () => {} });
    try {
      await expect.poll(async () => (await gw.ledger.balance(session.id)).usdMicro, { timeout: 20_000 }).toBe(80_000n);
      const holds = await gw.ledger.holds(session.id);
      expect(holds.map((h) => h.status).sort()).toEqual(['expired', 'held']);
    } finally {
      await gw.close();
    }
  }, 120_000);
});
