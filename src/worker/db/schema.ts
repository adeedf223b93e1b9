/**
 * The local database (spec 000 section 3): schema versions 40 (pre-branch), 41 (branch fields) and 42 (folders),
 * plus the event log (`events`) and `meta`, which this app adds in version 42.
 *
 * Version numbers are the spec's: db.version(42) (Dexie stores 420 natively).
 * Every later schema repeats only what changes; Dexie keeps the rest.
 */
import Dexie from 'dexie';
import type { EntityTable, Table, Transaction } from 'dexie';
import type { RawEvent } from '../../events/catalogue';
import { messageRowNeedsV41Upgrade, upgradeMessageRowToV41 } from '../../events/message-upgrade';
import type { LegacyMessageRow } from '../../events/message-upgrade';
import type {
  ConversationFolderRow,
  ConversationRow,
  FileRow,
  FolderRow,
  InstructionRow,
  LibraryConversationRow,
  LibraryRow,
  MessageLibraryRow,
  MessageRow,
  ScratchpadEntryRow,
} from '../../events/model';

export const DB_NAME = 'parley';
/** The schema version this build opens (spec 000 section 3). */
export const SCHEMA_VERSION = 42;
/** Spec 000 section 9: database migration batch. */
export const MIGRATION_BATCH_SIZE = 1000;

/** Schema v40, the pre-branch schema. Frozen: never edit, add a new version instead. */
export const SCHEMA_V40 = {
  conversations: '++id, slug, name, createdAt, updatedAt, latestMessage, uuid, isMediaOnly',
  messages: '++id, timestamp, model, role, prompt, cost, conversationSlug, modelContext',
  messageLibrary: '++id, messageId, libraryId',
  files: '++id',
  library: '++id, createdAt, lastModified, fileId, name, content, processingTime, type, status, order',
  libraryConversations: '++id, libraryId, conversationId',
  instructions: '++id, name, instructions, createdAt, updatedAt',
  scratchpadEntries: '++id, content, type, timestamp, conversationSlug',
} as const;

/** Schema v41: messages gain the branch indexes. */
export const SCHEMA_V41 = {
  messages:
    '++id, timestamp, model, role, prompt, cost, conversationSlug, modelContext, parentMessageId, alternativeGroup, branchIndex, isActiveBranch, branchDepth, updatedAt',
} as const;

/** Schema v42: folders and conversation-folder links; this app's event log and meta store. */
export const SCHEMA_V42 = {
  folders: '++id, name, createdAt, updatedAt, parentId',
  conversationFolders: '++id, conversationId, folderId',
  events: '++seq, &id, type',
  meta: 'key',
} as const;

/** An event row as stored: any version (upcast on read), with its log position. */
export type EventRow = RawEvent & { seq: number };
/** Key-value rows: projection versions (`projection:<name>`), markers, legacy adoption. */
export interface MetaRow {
  key: string;
  value: unknown;
}

export interface UpgradeProgress {
  version: number;
  table: string;
  /** 1-based batch number. */
  batch: number;
  /** Rows read in this batch. */
  rows: number;
  /** Rows changed in this batch. */
  changed: number;
}

export interface ParleyDBOptions {
  /** IndexedDB implementation (tests pass fake-indexeddb's). */
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
  /** Called after each migration batch (progress display, tests). */
  onUpgradeProgress?: (progress: UpgradeProgress) => void;
  /** Chromium transaction durability; 'default' unless the engine chooses otherwise. */
  chromeTransactionDurability?: 'default' | 'strict' | 'relaxed';
}

/**
 * v41 upgrade of the messages table, in batches of {@link MIGRATION_BATCH_SIZE} by primary-key paging
 * (each batch one bulkPut of the changed rows), never one giant modify.
 */
export async function upgradeMessagesToV41(tx: Transaction, onProgress?: (p: UpgradeProgress) => void): Promise<number> {
  const messages = tx.table<LegacyMessageRow, number>('messages');
  let lastKey: number | null = null;
  let batch = 0;
  let total = 0;
  for (;;) {
    const rows: LegacyMessageRow[] =
      lastKey === null
        ? await messages.orderBy(':id').limit(MIGRATION_BATCH_SIZE).toArray()
        : await messages.where(':id').above(lastKey).limit(MIGRATION_BATCH_SIZE).toArray();
    if (rows.length === 0) break;
    batch++;
    const changed: MessageRow[] = [];
    for (const row of rows) if (messageRowNeedsV41Upgrade(row)) changed.push(upgradeMessageRowToV41(row));
    if (changed.length > 0) await messages.bulkPut(changed);
    total += changed.length;
    onProgress?.({ version: 41, table: 'messages', batch, rows: rows.length, changed: changed.length });
    lastKey = (rows[rows.length - 1] as LegacyMessageRow).id;
    if (rows.length < MIGRATION_BATCH_SIZE) break;
  }
  return total;
}

export class ParleyDB extends Dexie {
  conversations!: EntityTable<ConversationRow, 'id'>;
  messages!: EntityTable<MessageRow, 'id'>;
  messageLibrary!: EntityTable<MessageLibraryRow, 'id'>;
  files!: EntityTable<FileRow, 'id'>;
  library!: EntityTable<LibraryRow, 'id'>;
  libraryConversations!: EntityTable<LibraryConversationRow, 'id'>;
  instructions!: EntityTable<InstructionRow, 'id'>;
  scratchpadEntries!: EntityTable<ScratchpadEntryRow, 'id'>;
  folders!: EntityTable<FolderRow, 'id'>;
  conversationFolders!: EntityTable<ConversationFolderRow, 'id'>;
  events!: Table<EventRow, number, Omit<EventRow, 'seq'> & { seq?: number }>;
  meta!: Table<MetaRow, string>;

  /** Durability asked of native read-write transactions (the append fast path), as Dexie's. */
  readonly transactionDurability: 'default' | 'strict' | 'relaxed' | undefined;
  private readonly epochs = new Map<string, number>();

  constructor(name: string = DB_NAME, options: ParleyDBOptions = {}) {
    const { onUpgradeProgress, ...dexieOptions } = options;
    super(name, dexieOptions);
    this.transactionDurability = options.chromeTransactionDurability;
    this.version(40).stores(SCHEMA_V40);
    this.version(41)
      .stores(SCHEMA_V41)
      .upgrade((tx) => upgradeMessagesToV41(tx, onUpgradeProgress));
    this.version(42).stores(SCHEMA_V42);
    // Count read-write transactions Dexie opens per table (see writeEpoch).
    this.use({
      stack: 'dbcore',
      name: 'ParleyWriteEpochs',
      create: (down) => ({
        ...down,
        transaction: (stores, mode, opts) => {
          if (mode === 'readwrite') for (const s of stores) this.epochs.set(s, (this.epochs.get(s) ?? 0) + 1);
          return down.transaction(stores, mode, opts);
        },
      }),
    });
  }

  /**
   * Number of read-write transactions opened through Dexie that included `table`, counted when each is created.
   * The append fast path (src/worker/db/native-append.ts) keeps an in-memory mirror of small tables; a change of
   * this number tells it that something else may have written the table, so the mirror is reloaded.
   */
  writeEpoch(table: string): number {
    return this.epochs.get(table) ?? 0;
  }
}
