/**
 * The gateway's tiny database interface. Two adapters implement it: embedded PGlite (src/server/db/pglite.ts)
 * and a real Postgres server through the `postgres` package (src/server/db/postgres.ts). Both run the same SQL.
 *
 * Parameters are positional ($1, $2, ...). Money never crosses this boundary as a JS number: bigints are passed
 * as decimal strings with an explicit cast in the SQL (`$2::bigint`, `$3::numeric`) and read back with `::text`.
 * Bytes (a stored video, say) are a Uint8Array bound to a bytea column.
 */
export type SqlParam = string | number | boolean | null | Uint8Array;

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
}

export interface Db extends Queryable {
  /** 'pglite' (embedded) or 'postgres' (DATABASE_URL). */
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn inside BEGIN/COMMIT; a throw rolls back and is rethrown. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
