/**
 * The database thread's side of ./pglite-thread.ts: PGlite opened here (./pglite.ts, prepared statements and
 * all), answering the gateway's messages. Statements run in the order they arrive; a transaction holds PGlite
 * (which serialises them) from `begin` until the gateway sends `commit` or `rollback`.
 */
import { openPgliteHere } from './pglite';
import type { Db, Queryable, Row, SqlParam } from './types';

export type DbRequest =
  | { id: number; op: 'query'; sql: string; params: SqlParam[]; tx?: number }
  | { id: number; op: 'begin' }
  | { id: number; op: 'commit' | 'rollback'; tx: number }
  | { id: number; op: 'close' };

/** A database error as plain fields (SQLSTATE `code`, `detail`, ...): an Error's own fields do not cross a thread. */
export interface DbErrorFields {
  message: string;
  fields: Record<string, string | number | boolean>;
}

export type DbReply = { id: number; rows?: Row[]; tx?: number } | { id: number; error: DbErrorFields };

export function errorFields(e: unknown): DbErrorFields {
  if (!(e instanceof Error)) return { message: String(e), fields: {} };
  const fields: Record<string, string | number | boolean> = { name: e.name };
  for (const [k, v] of Object.entries(e)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
  return { message: e.message, fields };
}

interface OpenTx {
  tx: Queryable;
  /** Ends the transaction: resolve commits, reject rolls back. */
  end: { resolve: () => void; reject: (e: Error) => void };
  /** The id of the commit or rollback message, answered once PGlite has ended the transaction. */
  endId: number;
}

export async function serveDatabase(dataDir: string | undefined, send: (reply: DbReply) => void): Promise<(req: DbRequest) => void> {
  const db: Db = await openPgliteHere(dataDir);
  const txs = new Map<number, OpenTx>();
  let nextTx = 1;
  const fail = (id: number, e: unknown): void => send({ id, error: errorFields(e) });

  return (req) => {
    switch (req.op) {
      case 'query': {
        const on = req.tx === undefined ? db : txs.get(req.tx)?.tx;
        if (on === undefined) return fail(req.id, new Error(`No open transaction ${req.tx}`));
        on.query(req.sql, req.params).then(
          (rows) => send({ id: req.id, rows }),
          (e: unknown) => fail(req.id, e),
        );
        return;
      }
      case 'begin': {
        const txId = nextTx++;
        db.transaction(
          (tx) =>
            new Promise<void>((resolve, reject) => {
              txs.set(txId, { tx, end: { resolve, reject }, endId: 0 });
              send({ id: req.id, tx: txId });
            }),
        ).then(
          () => {
            const t = txs.get(txId);
            txs.delete(txId);
            if (t) send({ id: t.endId, rows: [] });
          },
          (e: unknown) => {
            const t = txs.get(txId);
            txs.delete(txId);
            if (!t) return fail(req.id, e); // BEGIN itself failed
            // A rollback asked for is an answer, not an error; a commit that failed is one.
            if (e instanceof RolledBack) send({ id: t.endId, rows: [] });
            else fail(t.endId, e);
          },
        );
        return;
      }
      case 'commit':
      case 'rollback': {
        const t = txs.get(req.tx);
        if (t === undefined) return fail(req.id, new Error(`No open transaction ${req.tx}`));
        t.endId = req.id;
        if (req.op === 'commit') t.end.resolve();
        else t.end.reject(new RolledBack());
        return;
      }
      case 'close':
        db.close().then(
          () => send({ id: req.id, rows: [] }),
          (e: unknown) => fail(req.id, e),
        );
        return;
    }
  };
}

class RolledBack extends Error {
  constructor() {
    super('rolled back');
  }
}
