/**
 * The read-model tables in memory: one Map per table, keyed by row id, with equality indexes built on first use
 * by updateWhere / deleteWhere and kept up to date afterwards. Executes Write ops with the same semantics as the
 * Dexie executor (src/worker/db/apply-writes.ts). Hand-written because it is small and on the hot path of replay.
 *
 * Rows handed out are immutable: put stores the given row object itself (shared with the event payload), and the
 * first update of a row replaces it with a new merged object that the table owns. Further updates change that
 * owned copy in place (no new object, no garbage: most of a replay's cost was copying rows and collecting the
 * copies) until the table hands its rows out (map, get, rows, and so cloneStore): from then on they are shared
 * again, and the next update copies. So a row someone else holds (an event payload, a snapshot, a caller's read)
 * never changes; rows handed out must be treated as read-only too.
 */
import { withChanges } from './writes';
import type { AnyRow, IndexField, IndexValue, ReadModelRows, RowKey, TableName, Write, WriteSink } from './writes';

type Index = Map<unknown, Set<RowKey>>;

class MemoryTable {
  /** `rows`: a copy's map (see MemoryStore.clone). */
  constructor(readonly rows = new Map<RowKey, AnyRow>()) {}
  /** Keys written (put, changed or deleted) since tracking started; null when not tracking. */
  touched: Set<RowKey> | null = null;
  /** field -> value -> keys. Only fields used by a *Where op get an index. */
  private readonly indexes = new Map<string, Index>();
  /** The indexes' fields (the keys of `indexes`), as an array: every update checks them. */
  private indexFields: string[] = [];
  /** Rows this table made by an update and has not handed out since: the only rows it may change in place. */
  owned = new Set<AnyRow>();

  put(row: AnyRow): void {
    if (this.indexes.size > 0) {
      const old = this.rows.get(row.id);
      if (old !== undefined) this.unindex(old);
      this.index(row);
    }
    // A row this table owned and now replaces may stay in `owned`: only the table ever had it, so it never comes
    // back (forgetting it on every put cost a lookup per put); the set is dropped at the next hand-out.
    this.rows.set(row.id, row);
    this.touched?.add(row.id);
  }

  update(key: RowKey, changes: object): void {
    const row = this.rows.get(key);
    if (row === undefined) return;
    this.modify(row, changes);
  }

  delete(key: RowKey): void {
    const row = this.rows.get(key);
    if (row === undefined) return;
    if (this.indexes.size > 0) this.unindex(row);
    this.rows.delete(key);
    this.owned.delete(row);
    this.touched?.add(key);
  }

  updateWhere(field: string, equals: IndexValue, changes: object): void {
    const keys = this.lookup(field).get(equals);
    if (keys === undefined || keys.size === 0) return;
    // Copy when the change may move rows between index buckets while we iterate.
    const list = keys.size === 1 ? keys : [...keys];
    for (const key of list) {
      const row = this.rows.get(key);
      if (row !== undefined) this.modify(row, changes);
    }
  }

  deleteWhere(field: string, equals: IndexValue): void {
    const keys = this.lookup(field).get(equals);
    if (keys === undefined) return;
    for (const key of [...keys]) this.delete(key);
  }

  clear(): void {
    this.rows.clear();
    this.indexes.clear();
    this.indexFields = [];
    this.owned.clear();
  }

  private modify(row: AnyRow, changes: object): void {
    this.touched?.add(row.id);
    let touchesIndex = false;
    for (let i = 0; i < this.indexFields.length; i++) if ((this.indexFields[i] as string) in changes) touchesIndex = true;
    if (touchesIndex) this.unindex(row);
    let next = row;
    if (this.owned.has(row)) assignChanges(row as unknown as Record<string, unknown>, changes as Record<string, unknown>);
    else {
      next = withChanges(row, changes as Partial<AnyRow>);
      this.rows.set(row.id, next);
      this.owned.add(next);
    }
    if (touchesIndex) this.index(next);
  }

  private lookup(field: string): Index {
    let idx = this.indexes.get(field);
    if (idx === undefined) {
      idx = new Map();
      this.indexes.set(field, idx);
      this.indexFields = [...this.indexes.keys()];
      for (const row of this.rows.values()) add(idx, fieldOf(row, field), row.id);
    }
    return idx;
  }

  private index(row: AnyRow): void {
    for (const [field, idx] of this.indexes) add(idx, fieldOf(row, field), row.id);
  }

  private unindex(row: AnyRow): void {
    for (const [field, idx] of this.indexes) {
      const v = fieldOf(row, field);
      const set = idx.get(v);
      if (set !== undefined) {
        set.delete(row.id);
        if (set.size === 0) idx.delete(v);
      }
    }
  }
}

/** Dexie's update semantics on a row the table owns: set each change, remove a property whose change is undefined. */
function assignChanges(row: Record<string, unknown>, changes: Record<string, unknown>): void {
  for (const k in changes) {
    const v = changes[k];
    if (v === undefined) delete row[k];
    else row[k] = v;
  }
}

function fieldOf(row: AnyRow, field: string): unknown {
  return (row as unknown as Record<string, unknown>)[field];
}

function add(idx: Index, value: unknown, key: RowKey): void {
  // Like IndexedDB, a row whose field is not a valid key (undefined, null, boolean, object) is not indexed.
  if (typeof value !== 'string' && typeof value !== 'number') return;
  let set = idx.get(value);
  if (set === undefined) {
    set = new Set();
    idx.set(value, set);
  }
  set.add(key);
}

export class MemoryStore implements WriteSink {
  private readonly tables = new Map<TableName, MemoryTable>();

  private t(name: TableName): MemoryTable {
    let table = this.tables.get(name);
    if (table === undefined) {
      table = new MemoryTable();
      this.tables.set(name, table);
    }
    return table;
  }

  apply(write: Write): void {
    switch (write.op) {
      case 'put':
        this.t(write.table).put(write.row);
        return;
      case 'update':
        this.t(write.table).update(write.key, write.changes);
        return;
      case 'delete':
        this.t(write.table).delete(write.key);
        return;
      case 'updateWhere':
        this.t(write.table).updateWhere(write.index, write.equals, write.changes);
        return;
      case 'deleteWhere':
        this.t(write.table).deleteWhere(write.index, write.equals);
        return;
    }
  }

  // WriteSink: a fold's writers write here directly.
  put<T extends TableName>(table: T, row: ReadModelRows[T]): void {
    this.t(table).put(row);
  }
  update<T extends TableName>(table: T, key: RowKey, changes: Partial<ReadModelRows[T]>): void {
    this.t(table).update(key, changes);
  }
  remove<T extends TableName>(table: T, key: RowKey): void {
    this.t(table).delete(key);
  }
  updateWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue, changes: Partial<ReadModelRows[T]>): void {
    this.t(table).updateWhere(index, equals, changes);
  }
  deleteWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue): void {
    this.t(table).deleteWhere(index, equals);
  }

  applyAll(writes: readonly Write[]): void {
    for (let i = 0; i < writes.length; i++) this.apply(writes[i] as Write);
  }

  /** The live map of a table (id -> row). Read-only by convention. Its rows are shared from now on (see above). */
  map<T extends TableName>(name: T): ReadonlyMap<RowKey, ReadModelRows[T]> {
    const table = this.t(name);
    if (table.owned.size > 0) table.owned = new Set();
    return table.rows as unknown as ReadonlyMap<RowKey, ReadModelRows[T]>;
  }

  get<T extends TableName>(name: T, key: RowKey): ReadModelRows[T] | undefined {
    return this.map(name).get(key);
  }

  /** A table's rows in primary-key order (as Dexie's toArray returns them). */
  rows<T extends TableName>(name: T): ReadModelRows[T][] {
    return [...this.map(name).values()].sort((a, b) => a.id - b.id);
  }

  size(name: TableName): number {
    return this.t(name).rows.size;
  }

  clear(name?: TableName): void {
    if (name === undefined) for (const t of this.tables.values()) t.clear();
    else this.t(name).clear();
  }

  /**
   * A copy: the same rows (shared, so from now on neither store changes them in place), in new maps, without the
   * indexes (built again on first use) or the tracking. Copies each map natively: several times faster than
   * putting the rows one by one, which the Inspector does for every state it shows.
   */
  clone(): MemoryStore {
    const out = new MemoryStore();
    for (const [name, table] of this.tables) {
      if (table.owned.size > 0) table.owned = new Set();
      out.tables.set(name, new MemoryTable(new Map(table.rows)));
    }
    return out;
  }

  tableNames(): TableName[] {
    return [...this.tables.keys()];
  }

  /** Start recording the keys written in `name` (see takeTouched). */
  track(name: TableName): void {
    this.t(name).touched = new Set();
  }

  /** Keys put, changed or deleted in `name` since track() or the last takeTouched(); resets the record. */
  takeTouched(name: TableName): RowKey[] {
    const table = this.t(name);
    const keys = table.touched === null ? [] : [...table.touched];
    if (table.touched !== null) table.touched = new Set();
    return keys;
  }

  /** Replace a table's rows wholesale, e.g. to mirror a database table. */
  load<T extends TableName>(name: T, rows: readonly ReadModelRows[T][]): void {
    const table = this.t(name);
    table.clear();
    const touched = table.touched;
    table.touched = null;
    for (const row of rows) table.put(row);
    table.touched = touched;
  }
}
