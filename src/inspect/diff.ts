/**
 * What changed between two states of a log: rows added, removed or changed (field by field) in each read-model
 * table, and changes to the preferences, the deposits and the queue. Rows are immutable and shared between the
 * states of one Timeline, so an unchanged row is usually the same object and costs one comparison. Pure.
 */
import type { AnyRow, RowKey, TableName } from '../projections/writes';
import type { LogState } from './state';
import { TABLES } from './state';

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export type Change =
  | { kind: 'added'; where: string; after: unknown }
  | { kind: 'removed'; where: string; before: unknown }
  | { kind: 'changed'; where: string; fields: FieldChange[] };

export interface StateDiff {
  changes: Change[];
}

/** Deep equality of JSON-like values (rows, payloads, preferences). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** Field-level changes between two objects (a missing field reads as undefined). */
export function fieldChanges(before: object, after: object): FieldChange[] {
  const out: FieldChange[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const field of keys) {
    const b = (before as Record<string, unknown>)[field];
    const a = (after as Record<string, unknown>)[field];
    if (!sameValue(b, a)) out.push({ field, before: b, after: a });
  }
  return out;
}

function diffRows(table: TableName, before: ReadonlyMap<RowKey, AnyRow>, after: ReadonlyMap<RowKey, AnyRow>, out: Change[]): void {
  const changes: { id: number; change: Change }[] = [];
  for (const [id, row] of after) {
    const old = before.get(id);
    if (old === row) continue;
    if (old === undefined) changes.push({ id, change: { kind: 'added', where: `${table} #${id}`, after: row } });
    else {
      const fields = fieldChanges(old, row);
      if (fields.length > 0) changes.push({ id, change: { kind: 'changed', where: `${table} #${id}`, fields } });
    }
  }
  for (const [id, row] of before) if (!after.has(id)) changes.push({ id, change: { kind: 'removed', where: `${table} #${id}`, before: row } });
  changes.sort((a, b) => a.id - b.id);
  for (const c of changes) out.push(c.change);
}

function diffKeyed(name: string, before: ReadonlyMap<string, unknown>, after: ReadonlyMap<string, unknown>, out: Change[]): void {
  for (const [key, value] of after) {
    const old = before.get(key);
    if (old === undefined) out.push({ kind: 'added', where: `${name} ${key}`, after: value });
    else if (!sameValue(old, value)) {
      const fields = typeof old === 'object' && old !== null && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? fieldChanges(old, value)
        : [{ field: '', before: old, after: value }];
      out.push({ kind: 'changed', where: `${name} ${key}`, fields });
    }
  }
  for (const [key, value] of before) if (!after.has(key)) out.push({ kind: 'removed', where: `${name} ${key}`, before: value });
}

/** Everything that differs from `before` to `after`. */
export function diffStates(before: LogState, after: LogState): StateDiff {
  const changes: Change[] = [];
  for (const table of TABLES) diffRows(table, before.tables.map(table), after.tables.map(table), changes);
  const prefFields = fieldChanges(before.preferences, after.preferences);
  if (prefFields.length > 0) changes.push({ kind: 'changed', where: 'preferences', fields: prefFields });
  const payments = (s: LogState) => new Map(s.payments.records.map((r) => [r.id, r as unknown]));
  diffKeyed('deposit', payments(before), payments(after), changes);
  diffKeyed('queue', before.queue, after.queue, changes);
  return { changes };
}

function show(v: unknown, max = 80): string {
  const s = v === undefined ? 'undefined' : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** The diff as readable lines: `+ added`, `- removed`, `~ changed field: before -> after`. */
export function formatDiff(diff: StateDiff): string[] {
  if (diff.changes.length === 0) return ['(no changes)'];
  const out: string[] = [];
  for (const c of diff.changes) {
    if (c.kind === 'added') out.push(`+ ${c.where} ${show(c.after, 160)}`);
    else if (c.kind === 'removed') out.push(`- ${c.where} ${show(c.before, 160)}`);
    else {
      out.push(`~ ${c.where}`);
      for (const f of c.fields) out.push(`    ${f.field || '(value)'}: ${show(f.before)} -> ${show(f.after)}`);
    }
  }
  return out;
}
