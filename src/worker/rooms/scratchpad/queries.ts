/** Live query of a conversation's scratchpad: its entries, newest first (src/worker/rooms/scratchpad/commands.ts). */
import { asyncScheduler, defer, filter, from, merge, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { NewEvent } from '../../../events/catalogue';
import type { ScratchpadEntryRow } from '../../../events/model';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import type { QueryHandlers } from '../../query-types';

/** The event changes this conversation's scratchpad. */
function touches(e: NewEvent, slug: string): boolean {
  switch (e.type) {
    case 'scratchpad.entryAdded':
      return e.payload.entry.conversationSlug === slug;
    case 'scratchpad.entryEdited':
    case 'scratchpad.entryDeleted':
      return e.payload.conversationSlug === slug;
    case 'conversation.purged':
      return e.payload.slug === slug;
    default:
      return false;
  }
}

export function scratchpadQueries(core: EngineCore): Pick<QueryHandlers, 'scratchpad'> {
  async function load(slug: string): Promise<ScratchpadEntryRow[]> {
    await core.whenStarted();
    if (!core.storageOk || slug === '') return [];
    const rows = await core.db.scratchpadEntries.where('conversationSlug').equals(slug).toArray();
    return rows.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
  }
  return {
    scratchpad: ({ slug }): Observable<ScratchpadEntryRow[]> =>
      merge(
        core.changes$.pipe(filter((c) => c.all)),
        core.events$.pipe(filter((events) => events.some((e) => touches(e, slug)))),
      ).pipe(
        startWith(null),
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        switchMap(() => defer(() => from(load(slug)))),
      ),
  };
}
