/**
 * Writes this tab started and has not seen finish (a system prompt saved when its dialog closes, a preference).
 * The engine runs commands concurrently, so a Send right after them could read the conversation or the
 * preferences before they land; the composer waits for them first (writesSettled), so what was set is what is sent.
 */
const inflight = new Set<Promise<unknown>>();

export function trackWrite<T>(write: Promise<T>): Promise<T> {
  inflight.add(write);
  const done = () => void inflight.delete(write);
  write.then(done, done);
  return write;
}

/** Resolves once every tracked write has finished (failed ones included: they raised their own notice). */
export async function writesSettled(): Promise<void> {
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
}
