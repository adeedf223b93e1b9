/**
 * Sending while offline waits for the network rather than failing (issue 10 item 8): the user's message is saved
 * at once (the log works without a network), and its reply starts when the browser is back online. Stop ends the
 * wait like any reply. Where the runtime has no idea of being online (Node, in tests), there is nothing to wait for.
 */
export function isOffline(): boolean {
  return typeof navigator !== 'undefined' && (navigator as { onLine?: boolean }).onLine === false;
}

/** How often the wait looks at navigator.onLine too: a worker does not always get the 'online' event. */
export const ONLINE_POLL_MS = 1000;

/** Resolves when the browser is online (at once if it is), or when `signal` aborts. Never rejects. */
export function waitForNetwork(signal: AbortSignal): Promise<void> {
  if (!isOffline() || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!isOffline()) done();
    }, ONLINE_POLL_MS);
    function done() {
      clearInterval(poll);
      removeEventListener('online', done);
      signal.removeEventListener('abort', done);
      resolve();
    }
    addEventListener('online', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
