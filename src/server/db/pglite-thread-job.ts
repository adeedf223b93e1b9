/**
 * The database thread's side (./pglite-thread.ts): one PGlite opened with ./pglite.ts (prepared statements and
 * all), and the messages that drive it. A transaction is held open across messages: `begin` answers once PGlite
 * has started it (PGlite runs one transaction at a time; other statements wait for it, as in one thread), its
 * statements name it, and `end` commits or rolls it back.
 */
import { openPglite } from './pglite';
import type { Db, Queryable, Row, SqlParam } from './types';

export type DbRequest =
  | { id: number; op: 'query'; sql: string; params: SqlParam[]; tx: number | null }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'close' };

/** An error as it crosses threads: its message and the fields callers read (`code`: the SQLSTATE). */
export interface DbErrorFields {
  message: string;
  code?: string;
  detail?: string;
  constraint?: string;
}

export type DbReply = { id: number; rows: Row[] } | { id: number; value: number | null } | { id: number; error: DbErrorFields };

interface OpenTransaction {
  tx: Queryable;
  commit: () => void;
  rollback: () => void;
  /** Settles once PGlite has committed (resolves) or rolled back (rejects). */
  over: Promise<unknown>;
}

export function errorFields(e: unknown): DbErrorFields {
  const out: DbErrorFields = { message: e instanceof Error ? e.message : String(e) };
  if (typeof e === 'object' && e !== null) {
    const o = e as Record<string, unknown>;
    if (typeof o.code === 'string') out.code = o.code;
    if (typeof o.detail === 'string') out.detail = o.detail;
    if (typeof o.constraint === 'string') out.constraint = o.constraint;
  }
  return out;
}

const ROLLED_BACK = 'rolled back by the caller';

export class DbThreadJobs {
  private readonly open = new Map<number, OpenTransaction>();
  private nextTx = 1;

  private constructor(private readonly db: Db) {}

  static async start(dataDir: string | undefined): Promise<DbThreadJobs> {
    return new DbThreadJobs(await openPglite(dataDir));
  }

  /** Runs one request; its reply is what the caller's promise settles with. */
  async handle(req: DbRequest): Promise<DbReply> {
    try {
      switch (req.op) {
        case 'query': {
          const on = req.tx === null ? this.db : this.open.get(req.tx)?.tx;
          if (on === undefined) throw new Error(`No open transaction ${req.tx}`);
          return { id: req.id, rows: await on.query(req.sql, req.params) };
        }
        case 'begin':
          return { id: req.id, value: await this.begin() };
        case 'end':
          await this.end(req.tx, req.commit);
          return { id: req.id, value: null };
        case 'close':
          await this.db.close();
          return { id: req.id, value: null };
      }
    } catch (e) {
      return { id: req.id, error: errorFields(e) };
    }
  }

  private begin(): Promise<number> {
    const id = this.nextTx++;
    return new Promise<number>((started, failed) => {
      const over: Promise<unknown> = this.db.transaction(
        (tx) =>
          new Promise<unknown>((commit, rollback) => {
            this.open.set(id, { tx, commit: () => commit(null), rollback: () => rollback(new Error(ROLLED_BACK)), over });
            started(id);
          }),
      );
      // BEGIN itself failed: the transaction never started.
      over.catch((e: unknown) => {
        if (!this.open.has(id)) failed(e);
      });
    });
  }

  private async end(id: number, commit: boolean): Promise<void> {
    const t = this.open.get(id);
    if (t === undefined) throw new Error(`No open transaction ${id}`);
    this.open.delete(id);
    if (commit) {
      t.commit();
      await t.over;
      return;
    }
    t.rollback();
    await t.over.catch((e: unknown) => {
      if (!(e instanceof Error && e.message === ROLLED_BACK)) throw e;
    });
  }
}
