/** Live query of the message queue: a conversation's queued messages, oldest first (src/worker/rooms/queue/commands.ts). */
import { asyncScheduler, defer, filter, from, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { QueuedView } from '../../../protocol/engine';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import { queuedViews } from '../replies/queue-store';
import type { QueryHandlers } from '../../query-types';
import { queueOffers } from './offers';

export function queueQueries(core: EngineCore): Pick<QueryHandlers, 'queue' | 'queueTurn'> {
  return {
    queueTurn: ({ slug }) => queueOffers(core).watch(slug),
    queue: ({ slug }): Observable<QueuedView[]> =>
      core.changes$.pipe(
        filter((c) => c.all || c.slugs.has(slug)),
        startWith(null),
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        switchMap(() =>
          defer(() =>
            from(
              (async () => {
                await core.whenStarted();
                if (!core.storageOk) return [];
                return queuedViews(core, slug);
              })(),
            ),
          ),
        ),
      ),
  };
}
