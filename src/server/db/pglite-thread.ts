/**
 * Embedded PGlite in a thread of its own (docs/gateway.md "Database"). PGlite runs its statements on the thread
 * that calls it; on the event loop's thread, every statement stops every stream for as long as it runs (batches of
 * write-behind rows took 1-3 ms each and up to 130 ms under load, and PGlite was a sixth of the gateway's CPU).
 * Here the event loop only posts a message and takes the rows back; the statement runs beside it, on the other
 * core.
 *
 * The same Db as ./pglite.ts (the worker opens exactly that one): statements run in the order they are asked,
 * one at a time; a transaction is held open in the worker until its callback here ends (./pglite-thread-job.ts); an
 * error keeps its message and SQLSTATE `code`. Values and rows cross by structured clone (bytes are copied).
 * If the thread dies, what waits on it fails, and so does every later call.
 */
import { Worker } from 'node:worker_threads';
import type { DbErrorFields, DbReply, DbRequest } from './pglite-thread-job';
import type { Db, Queryable, Row, SqlParam } from './types';

/** An error the database thread reported, with its SQLSTATE `code` (and detail, constraint) when it had one. */
export class DbThreadError extends Error {
  readonly code?: string;
  readonly detail?: string;
  readonly constraint?: string;

  constructor(fields: DbErrorFields) {
    super(fields.message);
    this.name = 'DbThreadError';
    if (fields.code !== undefined) this.code = fields.code;
    if (fields.detail !== undefined) this.detail = fields.detail;
    if (fields.constraint !== undefined) this.constraint = fields.constraint;
  }
}

type Ask = DbRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Waiting {
  resolve: (reply: DbReply) => void;
  reject: (e: unknown) => void;
}

class DbThread {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private dead: Error | null = null;

  constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (reply: DbReply) => {
      const w = this.waiting.get(reply.id);
      if (w === undefined) return;
      this.waiting.delete(reply.id);
      // Only a call in flight keeps the process alive: an idle database never does, as PGlite in one thread.
      if (this.waiting.size === 0) this.worker.unref();
      w.resolve(reply);
    });
    const stop = (e: Error): void => {
      this.dead ??= e;
      for (const w of this.waiting.values()) w.reject(this.dead);
      this.waiting.clear();
    };
    worker.on('error', (e) => stop(new Error(`The database thread failed: ${e.message}`)));
    worker.on('exit', (code) => stop(new Error(`The database thread stopped (exit code ${code})`)));
  }

  private call(ask: Ask): Promise<DbReply> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<DbReply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) this.worker.ref();
      this.worker.postMessage({ ...ask, id });
    });
  }

  /** The reply to `ask`; an error reply is thrown. */
  private async answer(ask: Ask): Promise<DbReply> {
    const reply = await this.call(ask);
    if ('error' in reply) throw new DbThreadError(reply.error);
    return reply;
  }

  async rows<T extends Row>(sql: string, params: readonly SqlParam[], tx: number | null): Promise<T[]> {
    const reply = await this.answer({ op: 'query', sql, params: params as SqlParam[], tx });
    return 'rows' in reply ? (reply.rows as T[]) : [];
  }

  async value(ask: Ask): Promise<number | null> {
    const reply = await this.answer(ask);
    return 'value' in reply ? reply.value : null;
  }

  async close(): Promise<void> {
    if (this.dead) return;
    try {
      await this.value({ op: 'close' });
    } finally {
      this.dead = new Error('The database is closed');
      await this.worker.terminate();
    }
  }
}

/** Opens PGlite (`dataDir` undefined: in memory) in its own thread; resolves once it is ready. */
export async function openPgliteThread(dataDir?: string): Promise<Db> {
  const worker = new Worker(new URL('./pglite-thread-entry.mjs', import.meta.url), { workerData: { dataDir } });
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error): void => {
      void worker.terminate();
      reject(e);
    };
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`The database thread stopped while opening (exit code ${code})`)));
    worker.once('message', (m: { ready: true } | { failed: DbErrorFields }) => {
      worker.removeAllListeners('error');
      worker.removeAllListeners('exit');
      if ('failed' in m) fail(new DbThreadError(m.failed));
      else resolve();
    });
  });
  const thread = new DbThread(worker);
  return {
    kind: 'pglite',
    query: <T extends Row = Row>(sql: string, params: readonly SqlParam[] = []) => thread.rows<T>(sql, params, null),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = (await thread.value({ op: 'begin' })) as number;
      let result: T;
      try {
        result = await fn({ query: <R extends Row = Row>(sql: string, params: readonly SqlParam[] = []) => thread.rows<R>(sql, params, tx) });
      } catch (e) {
        await thread.value({ op: 'end', tx, commit: false }).catch(() => {});
        throw e;
      }
      await thread.value({ op: 'end', tx, commit: true });
      return result;
    },
    close: () => thread.close(),
  };
}
