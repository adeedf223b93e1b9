/**
 * Ledger throughput (issue 10): charges per second with 50 concurrent sessions, on embedded PGlite and on a real
 * PostgreSQL this bench starts (tests/unit/server/pg-server.ts; skipped with a note when its binaries are missing).
 * Baseline, measured in the same run on the same database: the bare row-lock transaction a charge cannot do without
 * (BEGIN; SELECT ... FOR UPDATE of the session; COMMIT), so the ratio says what the ledger's entry, conditional
 * update and idempotency key cost on top of the lock. Also the p99 latency of one charge under that load against the
 * baseline's p99 (what the charge adds to a paid reply's settle; the hold's share of time to first token is
 * gateway-holds.bench.ts).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { openDatabase } from '../../src/server/db/open';
import type { Db } from '../../src/server/db/types';
import { Ledger } from '../../src/server/money/ledger';
import { createSession } from '../../src/server/sessions/store';
import { startTempPostgres } from '../unit/server/pg-server';
import { size } from './smoke';
import type { BenchResult } from './types';

const SESSIONS = size(50, 5);
const PER_SESSION = size(40, 3);

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)] ?? Number.NaN;
}

async function run(ids: string[], op: (id: string, i: number) => Promise<unknown>): Promise<{ perSecond: number; p99: number }> {
  const lat: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < PER_SESSION; i++) {
        const t = performance.now();
        await op(id, i);
        lat.push(performance.now() - t);
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return { perSecond: (ids.length * PER_SESSION) / s, p99: p99(lat) };
}

async function measure(label: string, db: Db): Promise<BenchResult[]> {
  const ledger = new Ledger(db, { nanoPriceUsdMicro: 1_000_000n });
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const { session } = await createSession(db);
    await ledger.credit(session.id, { key: `bench-seed:${session.id}`, usdMicro: 1_000_000_000n });
    ids.push(session.id);
  }
  const lockOnly = (id: string) => db.transaction((tx) => tx.query('SELECT usd_micro FROM sessions WHERE id = $1 FOR UPDATE', [id]));
  const charge = (id: string, i: number) => ledger.charge(id, { key: `bench:${id}:${i}:${randomBytes(4).toString('hex')}`, usdMicro: 1_000n });
  // Warm-up, then interleave the two so that the machine's load hits both alike.
  await run(ids.slice(0, 5), lockOnly);
  await run(ids.slice(0, 5), charge);
  const base1 = await run(ids, lockOnly);
  const ch1 = await run(ids, charge);
  const base2 = await run(ids, lockOnly);
  const ch2 = await run(ids, charge);
  const base = { perSecond: (base1.perSecond + base2.perSecond) / 2, p99: Math.max(base1.p99, base2.p99) };
  const ch = { perSecond: (ch1.perSecond + ch2.perSecond) / 2, p99: Math.max(ch1.p99, ch2.p99) };
  const load = `load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;
  return [
    {
      name: `ledger charges/s, 50 sessions, ${label}`,
      unit: 'charges/s',
      value: ch.perSecond,
      baseline: base.perSecond,
      ratio: ch.perSecond / base.perSecond,
      target: 'ratio >= 0.25 of the bare row-lock transaction',
      pass: ch.perSecond / base.perSecond >= 0.25,
      notes: load,
    },
    {
      name: `ledger charge p99, 50 sessions, ${label}`,
      unit: 'ms',
      value: ch.p99,
      baseline: base.p99,
      ratio: ch.p99 / base.p99,
      target: 'ratio <= 4 of the bare row-lock transaction',
      pass: ch.p99 / base.p99 <= 4,
      notes: load,
    },
  ];
}

export default async function ledgerBench(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const lite = await openDatabase({ kind: 'memory' });
  out.push(...(await measure('PGlite', lite)));
  await lite.close();
  let pg: Awaited<ReturnType<typeof startTempPostgres>> | null = null;
  try {
    pg = await startTempPostgres();
  } catch (e) {
    console.log(`PostgreSQL skipped: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (pg) {
    const name = `parley_bench_${randomBytes(4).toString('hex')}`;
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(pg.url);
    u.pathname = `/${name}`;
    const db = await openDatabase({ kind: 'postgres', url: u.toString() });
    try {
      out.push(...(await measure('PostgreSQL (pool of 10)', db)));
    } finally {
      await db.close();
      await pg.stop();
    }
  }
  return out;
}
