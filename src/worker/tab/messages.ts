import type { DbMarker } from '../db/lifecycle';

/** Messages between tabs, the broker, the relay channel and the engine worker (not the engine API itself). */

export const LEADER_LOCK = 'parley-engine-leader';
/** BroadcastChannel for leader announcements and reload requests. */
export const ENGINE_CHANNEL = 'parley-engine';
/** BroadcastChannel carrying bridged ports when SharedWorker is missing. */
export const RELAY_CHANNEL = 'parley-relay';

export type TabToBroker =
  | { type: 'leader'; tabId: string }
  | { type: 'connect'; tabId: string; port: MessagePort };

export type BrokerToLeader = { type: 'connect'; tabId: string; port: MessagePort };

export type TabToEngineWorker = { type: 'connect'; port: MessagePort };

export type EngineAnnouncement =
  | { type: 'leader'; tabId: string; engineId: string }
  | { type: 'reload'; reason: string; delayMs: number }
  | { type: 'db-marker'; marker: DbMarker };

export type RelayControl = { type: 'relay-connect'; link: string; tabId: string };
