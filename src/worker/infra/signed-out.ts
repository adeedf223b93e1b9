/**
 * "This browser was signed out of its session" (401 SIGNED_OUT: another browser made a new recovery code or
 * signed the others out; docs/gateway.md "Sessions"), seen by any of the engine's gateway clients: the engine
 * core listens and refreshes the session, which says so to the user and starts a new session.
 */
import { SIGNED_OUT } from '../../protocol/api';

const listeners = new Set<() => void>();

/** Called on every SIGNED_OUT answer; returns the unsubscribe. */
export function onSignedOut(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A gateway answer's status and `error` code: tells the listeners when it says signed out. */
export function noteGatewayAnswer(status: number, error: unknown): void {
  if (status === 401 && error === SIGNED_OUT) for (const l of listeners) l();
}
