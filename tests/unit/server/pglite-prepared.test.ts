/**
 * PGlite's hot statements are prepared and executed with their values as SQL literals (src/server/db/pglite.ts):
 * every value must arrive exactly as a protocol parameter would, whatever it contains.
 */
import { describe, expect, it } from 'vitest';
import { memoryDatabase } from './helpers';

const database = memoryDatabase();

const NASTY = [
  "it's",
  "''",
  "'; DROP TABLE sessions; --",
  // A value out of its literal would run a second statement (prepared statements go through the simple protocol).
  "x'); INSERT INTO prepared_probe (k, v) VALUES ('escaped', 'yes'); --",
  "\\'); INSERT INTO prepared_probe (k, v) VALUES ('escaped2', 'yes'); --",
  'back\\slash \\\' and \\\\',
  '$1 $$ $tag$ E\'\\n\'',
  'é ü 漢字 🙂',
  '"{\\"json\\": [1, 2]}"',
  '',
  ' spaced ',
];

describe('prepared statements on PGlite', () => {
  it('after a few runs a statement is prepared, and strings, numbers, booleans and null come back exactly', async () => {
    const sql = 'SELECT $1::text AS s, $2::bigint::text AS b, $3::boolean AS f, $4::text AS n, length($1::text) AS len';
    for (let round = 0; round < 3; round++) {
      for (const s of NASTY) {
        const rows = await database().query<{ s: string; b: string; f: boolean; n: string | null; len: number }>(sql, [s, 1234567890123, round % 2 === 0, null]);
        expect(rows).toEqual([{ s, b: '1234567890123', f: round % 2 === 0, n: null, len: [...s].length }]);
      }
    }
    const prepared = await database().query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    expect(prepared.some((p) => p.statement.includes('$1::text AS s'))).toBe(true);
  });

  it('a value never escapes its literal: a prepared insert stores it, and the table is still there', async () => {
    await database().query('CREATE TABLE prepared_probe (k TEXT PRIMARY KEY, v TEXT)');
    for (let i = 0; i < NASTY.length; i++) await database().query('INSERT INTO prepared_probe (k, v) VALUES ($1, $2)', [`k${i}`, NASTY[i] ?? '']);
    const rows = await database().query<{ k: string; v: string }>('SELECT k, v FROM prepared_probe ORDER BY k');
    expect(rows.map((r) => r.v)).toEqual([...NASTY.keys()].map(String).sort().map((i) => NASTY[Number(i)]));
    expect((await database().query<{ n: number }>('SELECT count(*)::int AS n FROM sessions'))[0]?.n).toBeGreaterThanOrEqual(0);
  });

  it('a statement that cannot be prepared still runs, and so do transactions', async () => {
    for (let i = 0; i < 4; i++) expect(await database().query("SELECT 'a' AS x; ")).toEqual([{ x: 'a' }]);
    const n = await database().transaction(async (tx) => {
      for (let i = 0; i < 4; i++) await tx.query('SELECT $1::int AS v', [i]);
      return (await tx.query<{ v: number }>('SELECT $1::int AS v', [7]))[0]?.v;
    });
    expect(n).toBe(7);
  });

  it('bytes and text with a NUL never go into a literal: the fourth run of a bytea update stores every byte, and a NUL is refused, not hung on', async () => {
    await database().query('CREATE TABLE prepared_bytes (k INT PRIMARY KEY, v BYTEA)');
    for (let k = 0; k < 5; k++) await database().query('INSERT INTO prepared_bytes (k, v) VALUES ($1, NULL)', [k]);
    // Every byte value, NULs and invalid UTF-8 included, and big enough to matter (a short video's worth).
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) % 256);
    for (let k = 0; k < 5; k++) await database().query('UPDATE prepared_bytes SET v = $2 WHERE k = $1', [k, bytes]);
    const rows = await database().query<{ k: number; v: Uint8Array }>('SELECT k, v FROM prepared_bytes ORDER BY k');
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(Buffer.compare(Buffer.from(row.v), Buffer.from(bytes))).toBe(0);
    for (let round = 0; round < 4; round++) await expect(database().query('SELECT $1::text AS s', ['a\0b'])).rejects.toThrow();
    expect(await database().query('SELECT $1::text AS s', ['still answering'])).toEqual([{ s: 'still answering' }]);
  });
});
