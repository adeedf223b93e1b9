/**
 * Declarative writes: what a projection (materializer) asks the store to do for one event. Pure data.
 *
 * The same ops are executed by the in-memory store (./memory-store.ts, used by fold and the replay CLI) and by the
 * worker against Dexie (src/worker/db/apply-writes.ts), with the same semantics:
 *  - put: insert or replace the whole row (keyed by row.id).
 *  - update: shallow-merge `changes` into the row with primary key `key`; no-op when the row does not exist.
 *    A change whose value is `undefined` removes that property (as Dexie's update does).
 *  - delete: remove the row with primary key `key` (no-op when missing).
 *  - updateWhere / deleteWhere: the same, for every row whose field `index` equals `equals`.
 */
import type {
  ConversationFolderRow,
  ConversationRow,
  FolderRow,
  InstructionRow,
  LibraryConversationRow,
  LibraryRow,
  MessageLibraryRow,
  MessageRow,
  ScratchpadEntryRow,
} from '../events/model';

/** Read-model tables a projection may write, with their row types. Every one is keyed by a numeric `id`. */
export interface ReadModelRows {
  conversations: ConversationRow;
  messages: MessageRow;
  messageLibrary: MessageLibraryRow;
  library: LibraryRow;
  libraryConversations: LibraryConversationRow;
  instructions: InstructionRow;
  scratchpadEntries: ScratchpadEntryRow;
  folders: FolderRow;
  conversationFolders: ConversationFolderRow;
}

export type TableName = keyof ReadModelRows;
export type RowKey = number;
/** Values an equality lookup may use (valid IndexedDB keys of the kinds we index). */
export type IndexValue = string | number;
/** A field of a table's row usable in updateWhere / deleteWhere (declared as an index in the Dexie schema). */
export type IndexField<T extends TableName> = Extract<keyof ReadModelRows[T], string>;

export type PutWrite<T extends TableName = TableName> = { op: 'put'; table: T; row: ReadModelRows[T] };
export type UpdateWrite<T extends TableName = TableName> = {
  op: 'update';
  table: T;
  key: RowKey;
  changes: Partial<ReadModelRows[T]>;
};
export type DeleteWrite<T extends TableName = TableName> = { op: 'delete'; table: T; key: RowKey };
export type UpdateWhereWrite<T extends TableName = TableName> = {
  op: 'updateWhere';
  table: T;
  index: IndexField<T>;
  equals: IndexValue;
  changes: Partial<ReadModelRows[T]>;
};
export type DeleteWhereWrite<T extends TableName = TableName> = {
  op: 'deleteWhere';
  table: T;
  index: IndexField<T>;
  equals: IndexValue;
};

/** One write, correlated per table (a put on 'messages' carries a MessageRow). */
export type Write = {
  [T in TableName]: PutWrite<T> | UpdateWrite<T> | DeleteWrite<T> | UpdateWhereWrite<T> | DeleteWhereWrite<T>;
}[TableName];

export type WriteOp = Write['op'];

// Constructors: typed by table, so a projection cannot put a message row into 'conversations'.
export function put<T extends TableName>(table: T, row: ReadModelRows[T]): Write {
  return { op: 'put', table, row } as PutWrite<T> as Write;
}
export function update<T extends TableName>(table: T, key: RowKey, changes: Partial<ReadModelRows[T]>): Write {
  return { op: 'update', table, key, changes } as UpdateWrite<T> as Write;
}
export function remove<T extends TableName>(table: T, key: RowKey): Write {
  return { op: 'delete', table, key } as DeleteWrite<T> as Write;
}
export function updateWhere<T extends TableName>(
  table: T,
  index: IndexField<T>,
  equals: IndexValue,
  changes: Partial<ReadModelRows[T]>,
): Write {
  return { op: 'updateWhere', table, index, equals, changes } as UpdateWhereWrite<T> as Write;
}
export function deleteWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue): Write {
  return { op: 'deleteWhere', table, index, equals } as DeleteWhereWrite<T> as Write;
}

/**
 * Where a projection's writer sends its writes (the same five ops as Write, as calls). The memory store is one, so
 * a fold applies each write as it is made, with no Write object or array per event; WriteList is another, which
 * records them as Write ops for the Dexie executor. Same semantics as the ops above.
 */
export interface WriteSink {
  put<T extends TableName>(table: T, row: ReadModelRows[T]): void;
  update<T extends TableName>(table: T, key: RowKey, changes: Partial<ReadModelRows[T]>): void;
  remove<T extends TableName>(table: T, key: RowKey): void;
  updateWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue, changes: Partial<ReadModelRows[T]>): void;
  deleteWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue): void;
}

/** A WriteSink that records the writes, in order, as Write ops (what a materializer returns). */
export class WriteList implements WriteSink {
  readonly writes: Write[] = [];
  put<T extends TableName>(table: T, row: ReadModelRows[T]): void {
    this.writes.push(put(table, row));
  }
  update<T extends TableName>(table: T, key: RowKey, changes: Partial<ReadModelRows[T]>): void {
    this.writes.push(update(table, key, changes));
  }
  remove<T extends TableName>(table: T, key: RowKey): void {
    this.writes.push(remove(table, key));
  }
  updateWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue, changes: Partial<ReadModelRows[T]>): void {
    this.writes.push(updateWhere(table, index, equals, changes));
  }
  deleteWhere<T extends TableName>(table: T, index: IndexField<T>, equals: IndexValue): void {
    this.writes.push(deleteWhere(table, index, equals));
  }
}

/** Send one Write op to a sink. */
export function sendWrite(sink: WriteSink, write: Write): void {
  switch (write.op) {
    case 'put':
      sink.put(write.table, write.row);
      return;
    case 'update':
      sink.update(write.table, write.key, write.changes);
      return;
    case 'delete':
      sink.remove(write.table, write.key);
      return;
    case 'updateWhere':
      sink.updateWhere(write.table, write.index as never, write.equals, write.changes);
      return;
    case 'deleteWhere':
      sink.deleteWhere(write.table, write.index as never, write.equals);
      return;
  }
}

/** A row as the stores handle it generically (every read-model row has a numeric id). */
export type AnyRow = ReadModelRows[TableName];

/**
 * `row` with `changes` shallow-merged, as a new object (the row itself is never modified), with Dexie's update
 * semantics: a change whose value is undefined removes the property. (A fresh object literal is also several
 * times faster in V8 than adding properties to an existing row.)
 */
export function withChanges<R extends object>(row: R, changes: Partial<R>): R {
  // Object.assign into a fresh literal, then a store per change. Not a spread: on rows that came out of JSON.parse
  // (an imported log) V8 clones `{ ...row }` onto a map outside the transition tree, and every property added to
  // that copy later (as the memory store does to the rows it owns) then costs a new map: folding an NDJSON log ran
  // 2x slower than with this copy. `{ ...row, ...changes }` copies both objects in the runtime and is slower still.
  const out = Object.assign({}, row) as Record<string, unknown>;
  for (const k in changes) {
    const v = (changes as Record<string, unknown>)[k];
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out as R;
}
