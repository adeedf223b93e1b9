/** The tab's connection to the engine, and React hooks over it. Components never touch storage directly. */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type * as Comlink from 'comlink';
import type { ConversationView, EngineApi, Query, QueryResult } from '../protocol/engine';
import { applyConversationUpdate } from '../protocol/conversation-updates';
import { engineWorkerName } from '../worker/tab/timing';
import { EngineConnection, type ConnectionState } from '../worker/tab/connection';

function storageOrNull(): Storage | null {
  try {
    return localStorage;
  } catch {
    return null;
  }
}

export const connection = new EngineConnection({
  createEngineWorker: () => new Worker(new URL('../worker/engine-worker.ts', import.meta.url), { type: 'module', name: engineWorkerName(storageOrNull()) }),
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

/**
 * A conversation page, live: whole views from the engine, and between them only the streaming replies' text, folded
 * here (src/protocol/conversation-updates.ts). undefined until the first view, null for a slug with no conversation.
 */
export function useConversation(slug: string): ConversationView | null | undefined {
  const [state, setState] = useState<{ slug: string; view: ConversationView | null | undefined } | undefined>(undefined);
  useEffect(() => {
    setState(undefined);
    return connection.subscribe({ kind: 'conversationUpdates', slug }, (update) =>
      setState((prev) => ({ slug, view: applyConversationUpdate(prev?.slug === slug ? prev.view : undefined, update) })),
    );
  }, [slug]);
  return state?.slug === slug ? state.view : undefined;
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
