/** The tab's connection to the engine, and React hooks over it. Components never touch storage directly. */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type * as Comlink from 'comlink';
import type { EngineApi, Query, QueryResult } from '../protocol/engine';
import { EngineConnection, type ConnectionState } from '../worker/tab/connection';

export const connection = new EngineConnection({
  createEngineWorker: () => new Worker(new URL('../worker/engine-worker.ts', import.meta.url), { type: 'module', name: 'parley-engine' }),
  createBroker: () => new SharedWorker(new URL('../worker/broker.ts', import.meta.url), { type: 'module', name: 'parley-broker' }),
});

/** Calls one engine command. */
export function engine<T>(fn: (api: Comlink.Remote<EngineApi>) => Promise<T>): Promise<T> {
  return connection.call(fn);
}

/** Subscribes to a live query; undefined until the first value arrives. */
export function useQuery<Q extends Query>(query: Q): QueryResult<Q> | undefined {
  const key = JSON.stringify(query);
  const [state, setState] = useState<{ key: string; value: QueryResult<Q> } | undefined>(undefined);
  useEffect(() => {
    const q = JSON.parse(key) as Q;
    return connection.subscribe(q, (value) => setState({ key, value }));
  }, [key]);
  return state?.key === key ? state.value : undefined;
}

let connectionState: ConnectionState = 'connecting';
const stateListeners = new Set<() => void>();
connection.onState((s) => {
  connectionState = s;
  for (const l of stateListeners) l();
});

export function useConnectionState(): ConnectionState {
  return useSyncExternalStore(
    (l) => {
      stateListeners.add(l);
      return () => stateListeners.delete(l);
    },
    () => connectionState,
  );
}
