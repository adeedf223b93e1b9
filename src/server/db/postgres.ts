import postgres from 'postgres';
import type { Db, Queryable, Row, SqlParam } from './types';

/** A real Postgres server (DATABASE_URL). Same SQL as the embedded adapter. */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Db> {
  const sql = postgres(url, {
    max: options.max ?? 10,
    // Keep the driver's own type parsing out of the way: money is read as ::text and parsed by the ledger.
    onnotice: () => {},
  });
  // Fail fast with a clear error when the server is unreachable.
  await sql.unsafe('SELECT 1');
  type Unsafe = (q: string, p?: SqlParam[]) => PromiseLike<readonly Row[]>;
  const wrap = (unsafe: Unsafe): Queryable => ({
    async query<T extends Row = Row>(text: string, params: readonly SqlParam[] = []): Promise<T[]> {
      // The driver binds a Buffer as bytea; a plain Uint8Array is viewed as one (no copy).
      const rows = await unsafe(text, params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p)));
      return [...rows] as T[];
    },
  });
  const root = wrap((q, p) => sql.unsafe(q, p));
  return {
    kind: 'postgres',
    query: root.query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const result = await sql.begin((tx) => fn(wrap((q, p) => tx.unsafe(q, p))));
      return result as T;
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
