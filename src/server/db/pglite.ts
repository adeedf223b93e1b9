import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, Row, SqlParam } from './types';

/**
 * Embedded Postgres (PGlite). `dataDir` undefined = in memory (tests). PGlite runs one statement at a time and
 * serialises transactions, so concurrency here is safe by construction; the ledger still uses conditional updates
 * so the same code is correct on a real server.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = dataDir === undefined ? new PGlite() : new PGlite(dataDir);
  await pg.waitReady;
  const wrap = (q: Pick<PGlite, 'query'>): Queryable => ({
    async query<T extends Row = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      const res = await q.query<T>(sql, [...params]);
      return res.rows;
    },
  });
  const root = wrap(pg);
  return {
    kind: 'pglite',
    query: root.query,
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
