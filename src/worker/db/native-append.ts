/**
 * The append fast path: one native IndexedDB read-write transaction (through Dexie's backendDB()) that adds the
 * events and applies their projection writes, without Dexie's per-operation machinery and without reading
 * before writing where it can be avoided. Measured in Chromium (tests/bench/log-append.bench.ts), Dexie's
 * transaction + modify path cost about twice a raw Dexie bulkPut of the same message rows; this path costs about
 * the same as that bulkPut.
 *
 * How:
 *  - Small read-model tables (MIRRORED_TABLES: conversations) are mirrored in memory (the MemoryStore that fold
 *    uses, so the semantics are the same). Writes are applied to the mirror and the rows they touched are put
 *    (or deleted) blind: a message no longer costs a read of its conversation. The mirror is loaded inside the
 *    append transaction the first time, and reloaded whenever Dexie opened a read-write transaction over the
 *    table since (ParleyDB.writeEpoch), the connection changed, or an append failed.
 *  - Other tables use the same per-table plan as the Dexie executor (./apply-writes.ts): pending puts at the
 *    end, ops that must read (update by key, where-ops) chained with request callbacks, in order.
 *  - Appends through this path are serialised per database (a promise queue), so the mirror always starts from
 *    committed state. The engine is the only writer of projection tables; writes made through Dexie (rebuild,
 *    import, a caller's own transaction) are noticed through the epochs.
 *
 * Used by appendEvents when it is not called inside a Dexie transaction (then it joins that transaction through
 * the Dexie executor instead).
 */
import Dexie from 'dexie';
import type { NewEvent } from '../../events/catalogue';
import { MemoryStore } from '../../projections/memory-store';
import { withChanges } from '../../projections/writes';
import type { AnyRow, IndexValue, ReadModelRows, TableName, Write } from '../../projections/writes';
import { planWrites } from './apply-writes';
import type { ParleyDB } from './schema';

/** Tables kept in memory by the fast path: small (one row per conversation) and written on every message. */
export const MIRRORED_TABLES: ReadonlySet<TableName> = new Set<TableName>(['conversations']);

interface Mirror {
  idb: IDBDatabase;
  epoch: number;
  store: MemoryStore;
}

const mirrors = new WeakMap<ParleyDB, Map<TableName, Mirror>>();
const queues = new WeakMap<ParleyDB, Promise<unknown>>();

/** Forget the in-memory mirrors of `db` (they are reloaded by the next append). */
export function dropMirrors(db: ParleyDB): void {
  mirrors.delete(db);
}

type Fail = (error: unknown) => void;
type Row = Record<string, unknown>;

function validMirror(db: ParleyDB, idb: IDBDatabase, table: TableName): Mirror | undefined {
  const m = mirrors.get(db)?.get(table);
  return m !== undefined && m.idb === idb && m.epoch === db.writeEpoch(table) ? m : undefined;
}

function writeMirrored(db: ParleyDB, idb: IDBDatabase, store: IDBObjectStore, table: TableName, writes: Write[], fail: Fail): void {
  const flush = (mirror: MemoryStore) => {
    mirror.track(table);
    mirror.applyAll(writes);
    for (const key of mirror.takeTouched(table)) {
      const row = mirror.get(table, key);
      if (row === undefined) store.delete(key);
      else store.put(row);
    }
  };
  const current = validMirror(db, idb, table);
  if (current !== undefined) {
    flush(current.store);
    return;
  }
  const epoch = db.writeEpoch(table);
  const req = store.getAll();
  req.onsuccess = () => {
    try {
      const mirror = new MemoryStore();
      mirror.load(table, req.result as ReadModelRows[typeof table][]);
      let byTable = mirrors.get(db);
      if (byTable === undefined) mirrors.set(db, (byTable = new Map()));
      byTable.set(table, { idb, epoch, store: mirror });
      flush(mirror);
    } catch (e) {
      fail(e);
    }
  };
}

/** Visit every record whose `field` equals `equals` (index or primary key when there is one, else a scan). */
function eachMatching(store: IDBObjectStore, field: string, equals: IndexValue, visit: (c: IDBCursorWithValue) => void, done: () => void, fail: Fail): void {
  const byKey = store.keyPath === field;
  const indexed = byKey || store.indexNames.contains(field);
  const req = byKey ? store.openCursor(equals) : indexed ? store.index(field).openCursor(equals) : store.openCursor();
  req.onsuccess = () => {
    try {
      const cursor = req.result;
      if (cursor === null) {
        done();
        return;
      }
      if (indexed || (cursor.value as Row)[field] === equals) visit(cursor);
      cursor.continue();
    } catch (e) {
      fail(e);
    }
  };
}

function writePlanned(store: IDBObjectStore, table: TableName, writes: Write[], fail: Fail): void {
  const plan = planWrites(writes).get(table);
  if (plan === undefined) return;
  const ops = plan.ops;
  let i = 0;
  const next = (): void => {
    try {
      while (i < ops.length) {
        const op = ops[i++]!;
        switch (op.kind) {
          case 'delete':
            store.delete(op.key); // no read: requests run in order
            continue;
          case 'update': {
            const req = store.get(op.key);
            req.onsuccess = () => {
              try {
                if (req.result !== undefined) store.put(withChanges(req.result as AnyRow, op.changes as Partial<AnyRow>));
                next();
              } catch (e) {
                fail(e);
              }
            };
            return;
          }
          case 'updateWhere':
            eachMatching(store, op.index, op.equals, (c) => c.update(withChanges(c.value as AnyRow, op.changes as Partial<AnyRow>)), next, fail);
            return;
          case 'deleteWhere':
            eachMatching(store, op.index, op.equals, (c) => c.delete(), next, fail);
            return;
        }
      }
      for (const row of plan.pending.values()) store.put(row);
    } catch (e) {
      fail(e);
    }
  };
  next();
}

function run(db: ParleyDB, events: readonly NewEvent[], writes: readonly Write[], tables: readonly TableName[]): Promise<number[]> {
  const idb = db.backendDB();
  const byTable = new Map<TableName, Write[]>();
  for (const w of writes) {
    let list = byTable.get(w.table);
    if (list === undefined) byTable.set(w.table, (list = []));
    list.push(w);
  }
  return new Promise<number[]>((resolve, reject) => {
    let tx: IDBTransaction;
    try {
      const durability = db.transactionDurability;
      tx = idb.transaction(['events', ...tables], 'readwrite', durability === undefined ? undefined : { durability });
    } catch (e) {
      reject(e);
      return;
    }
    const seqs = new Array<number>(events.length);
    let failure: unknown = null;
    const fail: Fail = (e) => {
      if (failure === null) failure = e;
      try {
        tx.abort();
      } catch {
        // already finished or aborting
      }
    };
    tx.oncomplete = () => resolve(seqs);
    tx.onerror = (ev) => {
      if (failure === null) failure = (ev.target as IDBRequest | null)?.error ?? tx.error;
    };
    tx.onabort = () => {
      dropMirrors(db); // the mirror already holds this batch's changes
      reject(failure ?? tx.error ?? new Dexie.AbortError('append transaction aborted'));
    };
    try {
      const log = tx.objectStore('events');
      for (let i = 0; i < events.length; i++) {
        const req = log.add(events[i]);
        req.onsuccess = () => {
          seqs[i] = req.result as number;
        };
      }
      for (const [table, list] of byTable) {
        const store = tx.objectStore(table);
        if (MIRRORED_TABLES.has(table)) writeMirrored(db, idb, store, table, list, fail);
        else writePlanned(store, table, list, fail);
      }
    } catch (e) {
      fail(e);
    }
  });
}

/**
 * Add `events` to the log and apply `writes` (their projection writes, in order) in one native transaction over
 * the events store and `tables`. Resolves with the events' seqs; on any failure nothing is written and it rejects.
 */
export function appendNative(db: ParleyDB, events: readonly NewEvent[], writes: readonly Write[], tables: readonly TableName[]): Promise<number[]> {
  const start = async (): Promise<number[]> => {
    if (!db.isOpen()) {
      if (db.hasBeenClosed()) throw new Dexie.DatabaseClosedError();
      await db.open();
    }
    return run(db, events, writes, tables);
  };
  const previous = queues.get(db) ?? Promise.resolve();
  const result = previous.then(start);
  queues.set(db, result.catch(() => undefined));
  return result;
}
