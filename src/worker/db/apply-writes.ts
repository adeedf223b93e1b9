/**
 * Executes projection Write ops (src/projections/writes.ts) on the Dexie read-model tables, inside the caller's
 * transaction, with the same semantics as the in-memory store.
 *
 * For speed the ops of one append are planned per table first:
 *  - puts are collected and written with one bulkPut per table at the end (the last put of a key wins);
 *  - an update / updateWhere / delete / deleteWhere that hits a row put earlier in the same batch is applied to
 *    that pending row in memory (the row never needs a second write);
 *  - every op is also sent to the database unless it targets a pending row by primary key (a deleteWhere that
 *    drops pending rows also deletes those keys, whose stored versions may not match); consecutive
 *    updateWhere ops on the same (index, value), or updates of the same key, are merged into one.
 * Each table's database ops run in order (awaited one after another; a Dexie modify reads before it writes),
 * and then its bulkPut; different tables proceed concurrently. Running the DB ops before the deferred puts is
 * equivalent to the sequential order because each op was also applied to any pending row it could affect and a
 * pending row overwrites whatever the op did to the stored one.
 */
import type { Table } from 'dexie';
import { withChanges } from '../../projections/writes';
import type { AnyRow, IndexValue, RowKey, TableName, Write } from '../../projections/writes';
import type { ParleyDB } from './schema';

type DbOp =
  | { kind: 'update'; key: RowKey; changes: Record<string, unknown> }
  | { kind: 'delete'; key: RowKey }
  | { kind: 'updateWhere'; index: string; equals: IndexValue; changes: Record<string, unknown> }
  | { kind: 'deleteWhere'; index: string; equals: IndexValue };

class TablePlan {
  /** Rows to bulkPut at the end, by key (never modified: a change replaces the pending row). */
  readonly pending = new Map<RowKey, AnyRow>();
  readonly ops: DbOp[] = [];

  put(row: AnyRow): void {
    this.pending.set(row.id, row);
  }

  private change(key: RowKey, row: AnyRow, changes: Record<string, unknown>): void {
    this.pending.set(key, withChanges(row, changes as Partial<AnyRow>));
  }

  update(key: RowKey, changes: Record<string, unknown>): void {
    const row = this.pending.get(key);
    if (row !== undefined) {
      this.change(key, row, changes);
      return;
    }
    const last = this.ops[this.ops.length - 1];
    if (last !== undefined && last.kind === 'update' && last.key === key) last.changes = { ...last.changes, ...changes };
    else this.ops.push({ kind: 'update', key, changes });
  }

  delete(key: RowKey): void {
    this.pending.delete(key);
    this.ops.push({ kind: 'delete', key });
  }

  updateWhere(index: string, equals: IndexValue, changes: Record<string, unknown>): void {
    for (const [key, row] of this.pending) {
      if ((row as unknown as Record<string, unknown>)[index] === equals) this.change(key, row, changes);
    }
    const last = this.ops[this.ops.length - 1];
    // Merge with the previous op if it selects the same rows and did not move rows out of that selection.
    if (
      last !== undefined &&
      last.kind === 'updateWhere' &&
      last.index === index &&
      last.equals === equals &&
      (!(index in last.changes) || last.changes[index] === equals)
    ) {
      last.changes = { ...last.changes, ...changes };
    } else {
      this.ops.push({ kind: 'updateWhere', index, equals, changes });
    }
  }

  deleteWhere(index: string, equals: IndexValue): void {
    for (const [key, row] of [...this.pending]) {
      if ((row as unknown as Record<string, unknown>)[index] === equals) {
        this.pending.delete(key);
        // The stored version of this row may not match (its field changed in this batch): delete it by key.
        this.ops.push({ kind: 'delete', key });
      }
    }
    this.ops.push({ kind: 'deleteWhere', index, equals });
  }
}

/** Plan writes per table (pure; exported for tests). */
export function planWrites(writes: readonly Write[]): Map<TableName, TablePlan> {
  const plans = new Map<TableName, TablePlan>();
  for (const w of writes) {
    let plan = plans.get(w.table);
    if (plan === undefined) plans.set(w.table, (plan = new TablePlan()));
    switch (w.op) {
      case 'put':
        plan.put(w.row);
        break;
      case 'update':
        plan.update(w.key, w.changes as Record<string, unknown>);
        break;
      case 'delete':
        plan.delete(w.key);
        break;
      case 'updateWhere':
        plan.updateWhere(w.index, w.equals, w.changes as Record<string, unknown>);
        break;
      case 'deleteWhere':
        plan.deleteWhere(w.index, w.equals);
        break;
    }
  }
  return plans;
}

function where(table: Table<AnyRow, RowKey>, index: string, equals: IndexValue) {
  const indexed = table.schema.primKey.name === index || table.schema.indexes.some((i) => i.name === index);
  // A field without an index still works (scan), so a new projection cannot break on a missing index.
  return indexed
    ? table.where(index).equals(equals)
    : table.toCollection().filter((row) => (row as unknown as Record<string, unknown>)[index] === equals);
}

async function runTable(table: Table<AnyRow, RowKey>, plan: TablePlan): Promise<void> {
  for (const op of plan.ops) {
    switch (op.kind) {
      case 'update':
        await table.update(op.key, op.changes);
        break;
      case 'delete':
        await table.delete(op.key);
        break;
      case 'updateWhere':
        await where(table, op.index, op.equals).modify(op.changes);
        break;
      case 'deleteWhere':
        await where(table, op.index, op.equals).delete();
        break;
    }
  }
  if (plan.pending.size === 1) await table.put(plan.pending.values().next().value as AnyRow);
  else if (plan.pending.size > 1) await table.bulkPut([...plan.pending.values()]);
}

/**
 * Apply `writes` to the database. Must run inside a 'rw' transaction that includes every table written
 * (appendEvents and the rebuild open one); outside of one, each table gets its own implicit transaction.
 */
export async function applyWrites(db: ParleyDB, writes: readonly Write[]): Promise<void> {
  if (writes.length === 0) return;
  const plans = planWrites(writes);
  const work: Promise<void>[] = [];
  for (const [name, plan] of plans) work.push(runTable(db.table<AnyRow, RowKey>(name), plan));
  await Promise.all(work);
}
