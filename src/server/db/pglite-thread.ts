/**
 * Embedded Postgres (PGlite) in a thread of its own. A statement on PGlite is CPU work (its wasm Postgres and the
 * emulated file system under it: about half a millisecond for a one-row insert), and on the event loop it held
 * every stream while it ran. Here the event loop only posts the statement and goes on; the thread runs
 * ./pglite-thread-job.ts (PGlite, prepared statements, transactions) and answers with the rows. Statements run in
 * the order they are sent, one at a time, as before; requests that arrive while one runs join the next batch of
 * the batched statements (db/batcher.ts), so under load the batches grow. The thread is referenced only while a
 * statement is pending, so an idle database never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';
import type { DbErrorFields, DbReply, DbRequest } from './pglite-thread-job';
import type { Db, Queryable, Row, SqlParam } from './types';

type Pending = { resolve: (r: { rows?: Row[]; tx?: number }) => void; reject: (e: Error) => void };

/** Distributes DbRequest without its id (each variant keeps its own fields). */
type Ask = DbRequest extends infer R ? (R extends DbRequest ? Omit<R, 'id'> : never) : never;

function rebuild(e: DbErrorFields): Error {
  const err = new Error(e.message);
  const { name, ...rest } = e.fields;
  if (typeof name === 'string') err.name = name;
  return Object.assign(err, rest);
}

export async function openPglite(dataDir?: string): Promise<Db> {
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { dataDir } });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: Error | null = null;
  const die = (e: Error): void => {
    if (dead) return;
    dead = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    const onStart = (m: { ready?: true; failed?: DbErrorFields }): void => {
      worker.off('message', onStart);
      if (m.failed) reject(rebuild(m.failed));
      else resolve();
    };
    worker.on('message', onStart);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The database thread exited (code ${code})`)));
  });
  worker.unref();
  worker.on('message', (m: DbReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if ('error' in m) p.reject(rebuild(m.error));
    else p.resolve(m);
  });
  worker.on('error', (e) => die(e instanceof Error ? e : new Error(String(e))));
  worker.on('exit', (code) => die(new Error(`The database thread exited (code ${code})`)));

  const ask = (req: Ask): Promise<{ rows?: Row[]; tx?: number }> =>
    new Promise((resolve, reject) => {
      if (dead) return reject(dead);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      if (pending.size === 1) worker.ref();
      worker.postMessage({ ...req, id });
    });
  const queryOn =
    (tx?: number) =>
    async <T extends Row = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> => {
      const r = await ask(tx === undefined ? { op: 'query', sql, params: [...params] } : { op: 'query', sql, params: [...params], tx });
      return (r.rows ?? []) as T[];
    };
  let closed = false;
  return {
    kind: 'pglite',
    query: queryOn(),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const { tx } = await ask({ op: 'begin' });
      if (tx === undefined) throw new Error('The database thread opened no transaction');
      let out: T;
      try {
        out = await fn({ query: queryOn(tx) });
      } catch (e) {
        await ask({ op: 'rollback', tx }).catch(() => {});
        throw e;
      }
      await ask({ op: 'commit', tx });
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (!dead) await ask({ op: 'close' }).catch(() => {});
      await worker.terminate();
    },
  };
}
