/**
 * The event log in the local database: append (events + projection writes in one transaction), read, export and
 * import as NDJSON, rebuild the read models from the log, and keep projections current across versions.
 *
 * The log is the truth; the read-model tables owned by projections are derived from it and may be cleared and
 * rebuilt at any time. Tables no projection owns (files, library, ...) are never touched here.
 */
import { legacyFolderEvents, LEGACY_FOLDERS_KEY } from './db/legacy-folders';
import Dexie from 'dexie';
import type { Table } from 'dexie';
import { adoptLegacyLibrary } from './db/legacy-library';
import { CURRENT_VERSION, makeEvent } from '../events/catalogue';
import type { NewEvent, StoredEvent } from '../events/catalogue';
import { decodeLog, encodeLog } from '../events/codec';
import { upgradeMessageRowToV41 } from '../events/message-upgrade';
import type { LegacyMessageRow } from '../events/message-upgrade';
import type { ConversationRow, MessageRow, ScratchpadEntryRow } from '../events/model';
import { normalizeTimestamp } from '../events/model';
import { upcast } from '../events/upcasters';
import { foldInto } from '../projections/fold';
import { MemoryStore } from '../projections/memory-store';
import { dispatchOf, writesOfEvent } from '../projections/projection';
import type { Projection } from '../projections/projection';
import { ownedTables, projectionMetaKey, projections as defaultProjections } from '../projections/registry';
import type { AnyRow, RowKey, Write } from '../projections/writes';
import { applyWrites } from './db/apply-writes';
import { appendNative } from './db/native-append';
import type { EventRow, MetaRow, ParleyDB } from './db/schema';

/** Events read per page when replaying the log. */
export const REPLAY_PAGE_SIZE = 2000;
/** Rows written per bulkPut when a rebuild writes the read models back. */
export const REBUILD_WRITE_BATCH = 1000;
/** Meta key recording that rows of a pre-log database were adopted into the log. */
export const LEGACY_ADOPTED_KEY = 'log:legacy-adopted';
/** Meta key set once saved instruction presets that predate their projection have been adopted into the log. */
export const LEGACY_INSTRUCTIONS_KEY = 'log:legacy-instructions-adopted';
/** Meta key set once scratchpad entries that predate their projection have been adopted into the log. */
export const LEGACY_SCRATCHPAD_KEY = 'log:legacy-scratchpad-adopted';

export interface LogOptions {
  /** The projections to apply (default: the registry). Tests inject their own. */
  projections?: readonly Projection[];
}

export interface AppendOptions extends LogOptions {
  /**
   * 'auto' (default): the native fast path (./db/native-append.ts), or the Dexie executor when called inside a
   * Dexie transaction (so the append joins it). 'dexie' / 'native' force one (tests, benchmarks).
   */
  path?: 'auto' | 'dexie' | 'native';
}

export interface RebuildProgress {
  phase: 'replay' | 'write' | 'done';
  /** Events replayed (replay) or rows written (write) so far. */
  done: number;
  total: number;
}
export type RebuildProgressFn = (progress: RebuildProgress) => void;

export interface RebuildResult {
  /** Events replayed. */
  events: number;
  /** Rows written per rebuilt table. */
  rows: Record<string, number>;
}

export interface EnsureResult {
  /** Names of the projections rebuilt. */
  rebuilt: string[];
  /** Events synthesised from rows of a database that predates the log (0 normally). */
  adopted: number;
}

export interface ImportResult {
  imported: number;
  skipped: number;
}

/** The tables an append with these projections touches: the log plus every table the projections own. */
export function appendScope(db: ParleyDB, projections: readonly Projection[] = defaultProjections): Table[] {
  return [db.events, ...ownedTables(projections).map((t) => db.table(t))];
}

function writesOf(events: readonly (NewEvent | StoredEvent)[], projections: readonly Projection[]): Write[] {
  const dispatch = dispatchOf(projections);
  const out: Write[] = [];
  for (const e of events) writesOfEvent(dispatch, e, out);
  return out;
}

/**
 * Append events to the log and apply their projection writes, all in one read-write transaction: either every
 * event is stored with every read-model change, or nothing is. Returns the events with their log positions.
 * Runs as a sub-transaction when called inside a caller's transaction that includes {@link appendScope}.
 */
export async function appendEvents(db: ParleyDB, events: readonly NewEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const projections = options.projections ?? defaultProjections;
  for (const e of events) {
    const current = CURRENT_VERSION[e.type];
    if (current === undefined) throw new Error(`appendEvents: unknown event type '${e.type}'`);
    if (e.v !== current) throw new Error(`appendEvents: '${e.type}' must be appended at version ${current}, got ${e.v}`);
  }
  // Pure and synchronous: a projection that throws does so before anything is written.
  const writes = writesOf(events, projections);
  const path = options.path ?? 'auto';
  let seqs: number[];
  if (path === 'native' || (path === 'auto' && !Dexie.currentTransaction)) {
    seqs = await appendNative(db, events, writes, ownedTables(projections));
  } else {
    seqs = await db.transaction('rw', appendScope(db, projections), async () => {
      const [keys] = await Promise.all([db.events.bulkAdd(events, { allKeys: true }), applyWrites(db, writes)]);
      return keys;
    });
  }
  return events.map((e, i) => ({ ...e, seq: seqs[i] as number }) as StoredEvent);
}

/** Events with seq >= fromSeq (all by default), in log order, upcast to current versions. */
export async function readLog(db: ParleyDB, fromSeq = 1, limit?: number): Promise<StoredEvent[]> {
  let q = db.events.where(':id').aboveOrEqual(fromSeq);
  if (limit !== undefined) q = q.limit(limit);
  const rows = await q.toArray();
  return rows.map((r) => upcast(r) as StoredEvent);
}

/** The whole log as NDJSON (header line first), events as stored. */
export async function exportLogNdjson(db: ParleyDB, exportedAt: number = Date.now()): Promise<string> {
  const rows = await db.transaction('r', db.events, () => db.events.toArray());
  return encodeLog(rows, { exportedAt });
}

/** Page through the log in seq order, within the current transaction. */
async function forEachPage(db: ParleyDB, fn: (page: StoredEvent[]) => void): Promise<void> {
  let last = 0;
  for (;;) {
    const rows: EventRow[] = await db.events.where(':id').above(last).limit(REPLAY_PAGE_SIZE).toArray();
    if (rows.length === 0) return;
    const page = new Array<StoredEvent>(rows.length);
    for (let i = 0; i < rows.length; i++) page[i] = upcast(rows[i] as EventRow) as StoredEvent;
    fn(page);
    last = (rows[rows.length - 1] as EventRow).seq;
    if (rows.length < REPLAY_PAGE_SIZE) return;
  }
}

/**
 * Rebuild inside the caller's rw transaction (which must include events, meta and the projections' tables):
 * replay the whole log through `projections` into memory page by page, then clear their tables, write the rows
 * back in batches and record the projections' versions.
 */
async function rebuildInTransaction(db: ParleyDB, projections: readonly Projection[], onProgress?: RebuildProgressFn): Promise<RebuildResult> {
  const total = await db.events.count();
  const store = new MemoryStore();
  let replayed = 0;
  onProgress?.({ phase: 'replay', done: 0, total });
  await forEachPage(db, (page) => {
    foldInto(store, page, projections);
    replayed += page.length;
    onProgress?.({ phase: 'replay', done: replayed, total });
  });

  const tables = ownedTables(projections);
  const rowsByTable = tables.map((t) => [t, store.rows(t)] as const);
  const totalRows = rowsByTable.reduce((n, [, rows]) => n + rows.length, 0);
  let written = 0;
  const result: RebuildResult = { events: replayed, rows: {} };
  onProgress?.({ phase: 'write', done: 0, total: totalRows });
  for (const [name, rows] of rowsByTable) {
    const table = db.table<AnyRow, RowKey>(name);
    await table.clear();
    for (let i = 0; i < rows.length; i += REBUILD_WRITE_BATCH) {
      const batch = rows.slice(i, i + REBUILD_WRITE_BATCH);
      await table.bulkPut(batch);
      written += batch.length;
      onProgress?.({ phase: 'write', done: written, total: totalRows });
    }
    result.rows[name] = rows.length;
  }
  await db.meta.bulkPut(projections.map((p): MetaRow => ({ key: projectionMetaKey(p), value: p.version })));
  onProgress?.({ phase: 'done', done: totalRows, total: totalRows });
  return result;
}

function rebuildScope(db: ParleyDB, projections: readonly Projection[]): Table[] {
  return [db.meta, ...appendScope(db, projections)];
}

/**
 * Clear the read-model tables owned by the projections and rebuild them from the log, in one transaction
 * (readers see the old read models or the new ones, never a half-built state). Progress is reported per page.
 */
export async function rebuildReadModels(db: ParleyDB, onProgress?: RebuildProgressFn, options: LogOptions = {}): Promise<RebuildResult> {
  const projections = options.projections ?? defaultProjections;
  return db.transaction('rw', rebuildScope(db, projections), () => rebuildInTransaction(db, projections, onProgress));
}

/**
 * Append the events of an NDJSON log that this log does not have (by event id), then rebuild the read models,
 * all in one transaction. A malformed file throws LogFormatError and changes nothing.
 */
export async function importLogNdjson(
  db: ParleyDB,
  text: string,
  options: LogOptions & { onProgress?: RebuildProgressFn } = {},
): Promise<ImportResult> {
  const { events } = decodeLog(text);
  const projections = options.projections ?? defaultProjections;
  return db.transaction('rw', rebuildScope(db, projections), async () => {
    const ids = events.map((e) => e.id);
    const existing = new Set(ids.length === 0 ? [] : ((await db.events.where('id').anyOf(ids).keys()) as string[]));
    const fresh: NewEvent[] = [];
    for (const e of events) {
      if (existing.has(e.id)) continue;
      const { type, v, id, at, payload } = e;
      fresh.push({ type, v, id, at, payload } as NewEvent);
    }
    if (fresh.length > 0) {
      await db.events.bulkAdd(fresh);
      await rebuildInTransaction(db, projections, options.onProgress);
    }
    return { imported: fresh.length, skipped: events.length - fresh.length };
  });
}

/**
 * Events standing for the rows of a database that predates the log (a schema v40/41 database from before this
 * app kept one): conversation.created and message.added for each row, in time order, with deterministic ids.
 */
export function legacyAdoptionEvents(conversations: readonly ConversationRow[], messages: readonly LegacyMessageRow[]): NewEvent[] {
  const out: { order: number; kind: 0 | 1; id: number; event: NewEvent }[] = [];
  for (const c of conversations) {
    const conversation: ConversationRow = {
      ...c,
      latestMessage: c.latestMessage ?? '',
      isMediaOnly: c.isMediaOnly ?? false,
      createdAt: normalizeTimestamp(c.createdAt),
      updatedAt: normalizeTimestamp(c.updatedAt),
    };
    const event = makeEvent('conversation.created', { conversation }, `legacy:conversation:${c.id}`, conversation.createdAt);
    out.push({ order: conversation.createdAt, kind: 0, id: c.id, event });
  }
  for (const m of messages) {
    const message: MessageRow = upgradeMessageRowToV41(m.status === undefined ? { ...m, status: 'done' } : m);
    const event = makeEvent('message.added', { message }, `legacy:message:${m.id}`, message.timestamp);
    out.push({ order: message.timestamp, kind: 1, id: m.id, event });
  }
  out.sort((a, b) => a.order - b.order || a.kind - b.kind || a.id - b.id);
  return out.map((x) => x.event);
}

/** Scratchpad rows of a database from before the scratchpad's events, as events (rows missing a field are skipped). */
export function legacyScratchpadEvents(rows: readonly Partial<ScratchpadEntryRow>[]): NewEvent[] {
  const out: NewEvent[] = [];
  for (const r of rows) {
    if (!Number.isSafeInteger(r.id) || typeof r.content !== 'string' || typeof r.conversationSlug !== 'string') continue;
    const timestamp = typeof r.timestamp === 'number' && Number.isFinite(r.timestamp) ? normalizeTimestamp(r.timestamp) : 0;
    const entry: ScratchpadEntryRow = { id: r.id!, content: r.content, type: typeof r.type === 'string' && r.type !== '' ? r.type : 'note', timestamp, conversationSlug: r.conversationSlug };
    out.push(makeEvent('scratchpad.entryAdded', { entry }, `legacy:scratchpad:${entry.id}`, timestamp));
  }
  return out;
}

/**
 * Make the read models match the log and this build's projections; call once when the engine starts.
 *  - A database that has read-model rows but an empty log (it predates the log) first gets those rows adopted
 *    into the log as events, so that nothing is lost by the rebuild.
 *  - Every projection whose stored version (meta `projection:<name>`) differs from its code's version, or was
 *    never recorded, is rebuilt from the log; the others are left alone.
 */
export async function ensureProjectionsCurrent(
  db: ParleyDB,
  options: LogOptions & { onProgress?: RebuildProgressFn } = {},
): Promise<EnsureResult> {
  const projections = options.projections ?? defaultProjections;
  const scope = [...new Set([...rebuildScope(db, projections), db.conversations, db.messages, db.instructions, db.scratchpadEntries, db.folders, db.conversationFolders])];
  return db.transaction('rw', scope, async () => {
    let adopted = 0;
    const logSize = await db.events.count();
    if (logSize === 0 && (await db.meta.get(LEGACY_ADOPTED_KEY)) === undefined) {
      const [conversations, messages] = await Promise.all([db.conversations.toArray(), db.messages.toArray()]);
      if (conversations.length + messages.length > 0) {
        const events = legacyAdoptionEvents(conversations, messages as LegacyMessageRow[]);
        await db.events.bulkAdd(events);
        await db.meta.put({ key: LEGACY_ADOPTED_KEY, value: { events: events.length } });
        adopted = events.length;
      }
    }
    // Instruction presets became events after the log existed: rows already in the table (a database of the
    // original app) were produced by no event, so they are adopted once, before their projection first rebuilds.
    if ((await db.meta.get(LEGACY_INSTRUCTIONS_KEY)) === undefined) {
      const rows = await db.instructions.toArray();
      const events = rows.map((instruction) => makeEvent('instruction.created', { instruction }, `legacy:instruction:${instruction.id}`, instruction.createdAt));
      if (events.length > 0) await db.events.bulkAdd(events);
      await db.meta.put({ key: LEGACY_INSTRUCTIONS_KEY, value: { events: events.length } });
    }
    // Library rows likewise (src/worker/db/legacy-library.ts).
    if (projections.some((p) => p.name === 'library')) await adoptLegacyLibrary(db);
    // Scratchpad entries likewise (the table is in the spec's schema since v40; its projection came later).
    if ((await db.meta.get(LEGACY_SCRATCHPAD_KEY)) === undefined) {
      const events = legacyScratchpadEvents(await db.scratchpadEntries.toArray());
      if (events.length > 0) await db.events.bulkAdd(events);
      await db.meta.put({ key: LEGACY_SCRATCHPAD_KEY, value: { events: events.length } });
    }
    // Folders likewise (schema v42's tables; their projection came with issue 10: src/worker/db/legacy-folders.ts).
    if ((await db.meta.get(LEGACY_FOLDERS_KEY)) === undefined) {
      const events = legacyFolderEvents(await db.folders.toArray(), await db.conversationFolders.toArray());
      if (events.length > 0) await db.events.bulkAdd(events);
      await db.meta.put({ key: LEGACY_FOLDERS_KEY, value: { events: events.length } });
    }
    const versions = await db.meta.bulkGet(projections.map(projectionMetaKey));
    const stale = projections.filter((p, i) => adopted > 0 || versions[i]?.value !== p.version);
    if (stale.length > 0) await rebuildInTransaction(db, stale, options.onProgress);
    return { rebuilt: stale.map((p) => p.name), adopted };
  });
}
