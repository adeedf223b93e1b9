import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, Row, SqlParam } from './types';

/**
 * A statement run this many times on the root connection is prepared once and then only executed: PGlite parses
 * and plans every query anew (its extended-protocol statements are unnamed), and for the gateway's hot statements
 * with CTEs that planning is most of their cost (the hold's reserve: 0.65 ms planned each time, 0.25 ms prepared).
 */
const PREPARE_AFTER = 3;
/** At most this many prepared statements and counted statement texts (the hot ones are a handful). */
const MAX_STATEMENTS = 256;

/**
 * Prepared statements for PGlite's one connection. `EXECUTE name(...)` takes its arguments as SQL literals, not as
 * protocol parameters, so every value is written as a quoted literal of unknown type: exactly what a text-format
 * parameter is, resolved to the type the statement infers for it. With standard_conforming_strings on (checked
 * when the database opens; otherwise nothing is prepared), a quote doubled is the only escape a string literal
 * has. Statements are prepared only outside transactions, from the root connection, and a statement that cannot
 * be prepared (a DDL, a multi-statement text) just runs as it is.
 *
 * The EXECUTE goes through the simple protocol (`exec`: one message where `query` sends five), about a quarter less
 * per statement (a one-row binding insert 0.99 -> 0.70 ms of CPU, `SELECT 1` 0.59 -> 0.48 ms, interleaved on a
 * loaded 2-core machine). The simple protocol would run a second statement if a value ever left its literal, so the
 * quoting rule above is what keeps a value a value: tests/unit/server/pglite-prepared.test.ts sends values built to
 * break out and checks that they come back whole and nothing else ran.
 */
class PreparedStatements {
  private readonly names = new Map<string, Promise<string | null>>();
  private readonly counts = new Map<string, number>();
  private next = 1;

  constructor(private readonly pg: PGlite) {}

  async query<T extends Row>(sql: string, params: readonly SqlParam[]): Promise<T[]> {
    // Bytes and text holding a NUL cannot be written as a literal (the query text is a C string: a NUL would end it
    // and leave PGlite waiting for the rest); as protocol parameters, bytes bind and a NUL is refused with an error.
    if (params.some(notLiteral)) return (await this.pg.query<T>(sql, [...params])).rows;
    const name = await this.nameOf(sql);
    if (name === null) return (await this.pg.query<T>(sql, [...params])).rows;
    const args = params.length === 0 ? '' : `(${params.map(literal).join(', ')})`;
    // Simple protocol (see the class comment); both protocols read the rows with the same text parsers.
    const results = await this.pg.exec(`EXECUTE ${name}${args}`);
    return (results[results.length - 1]?.rows ?? []) as T[];
  }

  private nameOf(sql: string): Promise<string | null> {
    const known = this.names.get(sql);
    if (known) return known;
    const n = (this.counts.get(sql) ?? 0) + 1;
    if (this.counts.size >= MAX_STATEMENTS && n === 1) this.counts.clear();
    this.counts.set(sql, n);
    if (n < PREPARE_AFTER || this.names.size >= MAX_STATEMENTS) return Promise.resolve(null);
    const name = `parley_s${this.next++}`;
    const prepared = this.pg.query(`PREPARE ${name} AS ${sql}`).then(
      () => name,
      () => null, // not preparable: it runs as it is from now on
    );
    this.names.set(sql, prepared);
    return prepared;
  }
}

/** Values that only travel as protocol parameters (see PreparedStatements.query). */
function notLiteral(v: SqlParam): boolean {
  return v instanceof Uint8Array || (typeof v === 'string' && v.includes('\0'));
}

/** A value as a quoted SQL literal of unknown type (what a text-format parameter is); see PreparedStatements. */
function literal(v: SqlParam): string {
  if (v === null) return 'NULL';
  if (v instanceof Uint8Array) throw new TypeError('Bytes are bound as parameters, never written as a literal');
  const text = typeof v === 'string' ? v : String(v);
  return `'${text.replace(/'/g, "''")}'`;
}

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
  const conforming = (await pg.query<{ standard_conforming_strings: string }>('SHOW standard_conforming_strings')).rows[0];
  const prepared = conforming?.standard_conforming_strings === 'on' ? new PreparedStatements(pg) : null;
  const root: Queryable = prepared ? { query: (sql, params = []) => prepared.query(sql, params) } : wrap(pg);
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
