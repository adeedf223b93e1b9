/**
 * The updates feed's read status (spec 001 sections 3 and 4): kept per id as engine data (`updates.read`, one id or
 * all at once), so it survives a reload and reaches every tab. The entries themselves are bundled data
 * (src/updates/feed.ts). Like the preferences, the read set is one small value kept in memory, folded from the log's
 * `type` index at start and followed from each append.
 */
import { BehaviorSubject, Subscription, filter, map, type Observable } from 'rxjs';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import { upcast } from '../../../events/upcasters';
import type { UpdatesHandlers, UpdatesView } from '../../../protocol/account';
import type { ActionResult } from '../../../protocol/engine';
import { UPDATE_ENTRIES, UPDATE_IDS, type UpdateEntry } from '../../../updates/feed';
import type { EngineCore, Room, RoomKind } from '../../core';
import type { QueryHandlers } from '../../query-types';

export const UPDATES_ERROR = {
  unknown: 'No such update',
  storage: 'Local storage unavailable',
} as const;

/** Read ids after some events (pure). */
export function foldUpdatesRead(read: ReadonlySet<string>, events: Iterable<{ type: string; payload: unknown }>): ReadonlySet<string> {
  let next: Set<string> | null = null;
  for (const e of events) {
    if (e.type !== 'updates.read') continue;
    for (const id of (e.payload as { ids: string[] }).ids) {
      if (read.has(id) || next?.has(id)) continue;
      next ??= new Set(read);
      next.add(id);
    }
  }
  return next ?? read;
}

export function updatesView(entries: readonly UpdateEntry[], read: ReadonlySet<string>): UpdatesView {
  const items = entries.map((e) => ({ ...e, read: read.has(e.id) }));
  return { items, unread: items.filter((i) => !i.read).length };
}

class UpdatesRoom implements Room {
  readonly read$ = new BehaviorSubject<ReadonlySet<string>>(new Set());
  private readonly subscriptions = new Subscription();
  private disposed = false;

  constructor(private readonly core: EngineCore) {
    this.subscriptions.add(
      core.events$.subscribe((events) => {
        const next = foldUpdatesRead(this.read$.value, events);
        if (next !== this.read$.value) this.read$.next(next);
      }),
    );
    // At start, and after an imported log: read back from the log.
    void core.whenStarted().then(() => this.load());
    this.subscriptions.add(core.changes$.pipe(filter((c) => c.all)).subscribe(() => void this.load()));
  }

  dispose(): void {
    this.disposed = true;
    this.subscriptions.unsubscribe();
  }

  private async load(): Promise<void> {
    if (!this.core.storageOk || this.disposed) return;
    try {
      const rows = await this.core.db.events.where('type').equals('updates.read').toArray();
      this.read$.next(foldUpdatesRead(new Set(), rows.map((r) => upcast(r))));
    } catch (error) {
      console.error('Update read status could not be read from the log', error);
    }
  }

  async markRead(ids: readonly string[]): Promise<ActionResult> {
    if (ids.some((id) => !UPDATE_IDS.has(id))) return { ok: false, error: UPDATES_ERROR.unknown };
    await this.core.whenStarted();
    const fresh = [...new Set(ids)].filter((id) => !this.read$.value.has(id));
    if (fresh.length === 0) return { ok: true };
    const now = Date.now();
    const event: NewEvent = makeEvent('updates.read', { ids: fresh, at: now }, crypto.randomUUID(), now);
    try {
      await this.core.append([event]);
      return { ok: true };
    } catch {
      return { ok: false, error: UPDATES_ERROR.storage };
    }
  }
}

const UPDATES_ROOM: RoomKind<UpdatesRoom> = { name: 'updates', create: (core) => new UpdatesRoom(core) };
function room(core: EngineCore): UpdatesRoom {
  return core.room(UPDATES_ROOM);
}

export function updatesCommands(core: EngineCore): UpdatesHandlers {
  const r = room(core);
  return {
    markUpdatesRead: (ids) => (Array.isArray(ids) && ids.length > 0 ? r.markRead(ids) : Promise.resolve({ ok: false, error: UPDATES_ERROR.unknown })),
    markAllUpdatesRead: () => r.markRead(UPDATE_ENTRIES.map((e) => e.id)),
  };
}

export function updatesQueries(core: EngineCore): Pick<QueryHandlers, 'updates'> {
  const r = room(core);
  return {
    updates: (): Observable<UpdatesView> => r.read$.pipe(map((read) => updatesView(UPDATE_ENTRIES, read))),
  };
}
