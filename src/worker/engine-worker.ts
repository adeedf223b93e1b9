/// <reference lib="webworker" />
/**
 * Entry of the engine's dedicated worker (started by the leader tab). Each tab connection arrives as a port and
 * gets its own Comlink endpoint; subscriptions made through a connection end when it closes.
 */
import * as Comlink from 'comlink';
import type { Subscription } from 'rxjs';
import type { EngineApi, Query, QueryResult } from '../protocol/engine';
import { Engine } from './engine';
import { timingFromName } from './tab/timing';
import { ENGINE_CHANNEL, type EngineAnnouncement, type TabToEngineWorker } from './tab/messages';

declare const self: DedicatedWorkerGlobalScope;

const announcements = new BroadcastChannel(ENGINE_CHANNEL);
const engine = new Engine({
  requestReload(reason, delayMs) {
    const message: EngineAnnouncement = { type: 'reload', reason, delayMs };
    announcements.postMessage(message);
  },
  storeMarker(marker) {
    const message: EngineAnnouncement = { type: 'db-marker', marker };
    announcements.postMessage(message);
  },
  // Shortened clocks for browser tests (./tab/timing.ts); none in normal use.
  ...timingFromName(self.name),
});

function connectionApi(): EngineApi & { close(): Promise<void> } {
  const subscriptions = new Set<Subscription>();
  return {
    ...engine.commands,
    async subscribe<Q extends Query>(query: Q, callback: (value: QueryResult<Q>) => void) {
      const subscription = engine.observe(query).subscribe((value) => {
        // The callback is a Comlink proxy: calling it posts to the tab.
        void Promise.resolve(callback(value as QueryResult<Q>)).catch(() => subscription.unsubscribe());
      });
      subscriptions.add(subscription);
      return Comlink.proxy(() => {
        subscription.unsubscribe();
        subscriptions.delete(subscription);
      });
    },
    async close() {
      for (const s of subscriptions) s.unsubscribe();
      subscriptions.clear();
    },
  };
}

self.onmessage = (event: MessageEvent<TabToEngineWorker>) => {
  if (event.data?.type === 'connect') Comlink.expose(connectionApi(), event.data.port);
};
