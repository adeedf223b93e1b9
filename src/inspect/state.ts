/**
 * The whole state of a log at any point: the read-model tables (the same projections the worker runs), the
 * preferences, the deposits and the message queue. A Timeline answers "the state after event N" quickly by keeping
 * a snapshot every `every` events in memory and folding only the events after the nearest one. Pure: no DOM, no
 * Node APIs (shared by the replay CLI and the app's Inspector).
 */
import { touchesOf } from '../events/catalogue';
import type { NewEvent } from '../events/catalogue';
import { foldInto } from '../projections/fold';
import { MemoryStore } from '../projections/memory-store';
import { applyPayments, EMPTY_PAYMENTS } from '../projections/payments';
import type { PaymentsState } from '../projections/payments';
import { applyPreferences } from '../projections/preferences';
import type { ProjectedEvent } from '../projections/projection';
import { foldQueue, QUEUE_EVENT_TYPES } from '../projections/queue';
import type { QueueEntry } from '../projections/queue';
import type { TableName } from '../projections/writes';
import { DEFAULT_PREFERENCES } from '../protocol/preferences';
import type { Preferences } from '../protocol/preferences';

export interface LogState {
  /** The read-model tables. Owned by the caller: a Timeline hands out a fresh copy each time. */
  tables: MemoryStore;
  preferences: Preferences;
  payments: PaymentsState;
  /** Waiting messages by conversation slug. */
  queue: ReadonlyMap<string, readonly QueueEntry[]>;
}

/** Every read-model table, in a fixed order (for listings and diffs). */
export const TABLES: readonly TableName[] = [
  'conversations',
  'messages',
  'messageLibrary',
  'library',
  'libraryConversations',
  'instructions',
  'scratchpadEntries',
  'folders',
  'conversationFolders',
];

/** A copy of a store's tables (rows are immutable and shared; the maps are new). */
export function cloneStore(store: MemoryStore): MemoryStore {
  return store.clone();
}

const QUEUE_TYPES: ReadonlySet<string> = new Set(QUEUE_EVENT_TYPES);

/** The state after folding `events` from empty. */
export function foldState(events: readonly ProjectedEvent[]): LogState {
  return new Timeline(events, Number.MAX_SAFE_INTEGER).stateAt(events.length);
}

/**
 * The slugs of the conversations an event belongs to: those its declaration says it touches, and the slug its
 * payload names (a streaming checkpoint touches no page, yet changes its conversation's reply). Empty for a global
 * event (preferences, library, folders, money...).
 */
export function slugsOf(event: ProjectedEvent): readonly string[] {
  const touched = touchesOf(event as NewEvent).slugs;
  const p = event.payload as { conversationSlug?: unknown; slug?: unknown; message?: { conversationSlug?: unknown }; conversation?: { slug?: unknown } };
  const named = p.conversationSlug ?? p.message?.conversationSlug ?? p.conversation?.slug ?? (event.type.startsWith('conversation.') ? p.slug : undefined);
  if (typeof named !== 'string' || touched.includes(named)) return touched;
  return touched.length === 0 ? [named] : [...touched, named];
}

interface Snapshot {
  tables: MemoryStore;
  preferences: Preferences;
  payments: PaymentsState;
}

/**
 * States of one log by position. Position n means "after the first n events" (0: empty, events.length: the
 * end). Snapshots are taken every `every` events, on first need, by one forward fold.
 */
export class Timeline {
  private readonly snapshots: Snapshot[] = [{ tables: new MemoryStore(), preferences: DEFAULT_PREFERENCES, payments: EMPTY_PAYMENTS }];
  /** Positions (0-based indexes) of queue events: the queue is folded from these alone. */
  private readonly queueAt: number[] = [];

  constructor(
    readonly events: readonly ProjectedEvent[],
    readonly every = 2000,
  ) {
    if (!(every >= 1)) throw new RangeError('snapshot interval must be at least 1');
    for (let i = 0; i < events.length; i++) if (QUEUE_TYPES.has((events[i] as ProjectedEvent).type)) this.queueAt.push(i);
  }

  get length(): number {
    return this.events.length;
  }

  /** How many snapshots are held (the empty state included). */
  get snapshotCount(): number {
    return this.snapshots.length;
  }

  /** How many snapshots the whole log needs (the empty state included). */
  get snapshotTotal(): number {
    return Math.floor(this.events.length / this.every) + 1;
  }

  /**
   * Build the next missing snapshot (one fold of `every` events), so that a caller can build them all in small
   * steps, between frames, before anyone asks (a page must not freeze on its first lookup). Returns whether any
   * are still missing. stateAt builds whatever is missing itself, so calling this is never needed for correctness.
   */
  buildNextSnapshot(): boolean {
    if (this.snapshots.length < this.snapshotTotal) this.ensureSnapshots(this.snapshots.length);
    return this.snapshots.length < this.snapshotTotal;
  }

  /** The state after the first `n` events (0 <= n <= length), as a fresh copy the caller may keep or change. */
  stateAt(n: number): LogState {
    if (!Number.isInteger(n) || n < 0 || n > this.events.length) throw new RangeError(`position ${n} is outside 0..${this.events.length}`);
    const k = Math.min(Math.floor(n / this.every), this.ensureSnapshots(Math.floor(n / this.every)));
    const base = this.snapshots[k] as Snapshot;
    const from = k * this.every;
    const tables = cloneStore(base.tables);
    let preferences = base.preferences;
    let payments = base.payments;
    const slice = this.events.slice(from, n);
    foldInto(tables, slice);
    for (const e of slice) {
      preferences = applyPreferences(preferences, e);
      payments = applyPayments(payments, e);
    }
    return { tables, preferences, payments, queue: this.queueBefore(n) };
  }

  /**
   * The states just before and just after event n (1 <= n <= length), for a diff: one lookup, then that one event
   * folded into a copy (half the work of two lookups).
   */
  statesAround(n: number): { before: LogState; after: LogState } {
    if (!Number.isInteger(n) || n < 1 || n > this.events.length) throw new RangeError(`event ${n} is outside 1..${this.events.length}`);
    const before = this.stateAt(n - 1);
    const event = this.events[n - 1] as ProjectedEvent;
    const tables = foldInto(before.tables.clone(), [event]);
    const after: LogState = {
      tables,
      preferences: applyPreferences(before.preferences, event),
      payments: applyPayments(before.payments, event),
      queue: this.queueBefore(n),
    };
    return { before, after };
  }

  /** The position after the last event at or before `time` (ms): events are in log order, which is time order. */
  positionAtTime(time: number): number {
    let lo = 0;
    let hi = this.events.length;
    // First event later than `time` (binary search; a log out of time order gives a position, never an error).
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.events[mid] as ProjectedEvent).at <= time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private queueBefore(n: number): Map<string, QueueEntry[]> {
    const list: ProjectedEvent[] = [];
    for (const i of this.queueAt) {
      if (i >= n) break;
      list.push(this.events[i] as ProjectedEvent);
    }
    return foldQueue(list);
  }

  /** Build snapshots up to index k (or as far as the log goes); returns the last index available. */
  private ensureSnapshots(k: number): number {
    const last = Math.floor(this.events.length / this.every);
    const target = Math.min(k, last);
    if (this.snapshots.length > target) return target;
    let prev = this.snapshots[this.snapshots.length - 1] as Snapshot;
    const tables = cloneStore(prev.tables);
    let preferences = prev.preferences;
    let payments = prev.payments;
    for (let s = this.snapshots.length; s <= target; s++) {
      const slice = this.events.slice((s - 1) * this.every, s * this.every);
      foldInto(tables, slice);
      for (const e of slice) {
        preferences = applyPreferences(preferences, e);
        payments = applyPayments(payments, e);
      }
      prev = { tables: s === target ? tables : cloneStore(tables), preferences, payments };
      this.snapshots.push(prev);
    }
    return target;
  }
}
