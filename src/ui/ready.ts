/**
 * The app's readiness gate (spec 001 section 4): the app counts as ready only on the client and once the conversation
 * store is hydrated. Here: running in a browser, the engine connected, and its conversation list answered (the
 * engine answers it from its opened store). Until then `<main>` is aria-busy and nothing is sent: the message input
 * keeps what is typed, and Send and Enter wait (src/ui/components/Composer.tsx). Once ready, it stays ready (a
 * leader hand-off later does not lock the page again: calls wait for the new engine by themselves).
 */
import { useEffect } from 'react';
import { useConnectionState, useQuery } from './engine';

export interface Readiness {
  client: boolean;
  engineConnected: boolean;
  conversationsHydrated: boolean;
}

export function isAppReady(r: Readiness): boolean {
  return r.client && r.engineConnected && r.conversationsHydrated;
}

let readyOnce = false;

export function useAppReady(): boolean {
  const connected = useConnectionState() === 'connected';
  const conversations = useQuery({ kind: 'conversations' });
  const now = readyOnce || isAppReady({ client: typeof window !== 'undefined', engineConnected: connected, conversationsHydrated: conversations !== undefined });
  useEffect(() => {
    if (now) readyOnce = true;
  }, [now]);
  return now;
}
