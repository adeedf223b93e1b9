/**
 * Database lifecycle (spec 000 section 4, "Database"; section 9 delays):
 *  - versionchange (another tab upgrades or deletes the database): close it, store a marker, and ask for a page
 *    reload after RELOAD_DELAY_MS;
 *  - an operation that finds the database closed (DatabaseClosedError): reopen after REOPEN_DELAY_MS and retry once;
 *  - blocked (our upgrade waits for another tab to close its connection): store a marker and log a warning.
 *
 * The worker has no localStorage and cannot reload tabs, so both are hooks the engine provides (it forwards the
 * marker and the reload request to the tabs).
 */
import type Dexie from 'dexie';

export const RELOAD_DELAY_MS = 300;
export const REOPEN_DELAY_MS = 100;

export type DbMarkerKind = 'versionchange' | 'blocked';

export interface DbMarker {
  kind: DbMarkerKind;
  dbName: string;
  /** Spec schema versions (Dexie's native version / 10); newVersion null when the database is being deleted. */
  oldVersion: number;
  newVersion: number | null;
  /** Milliseconds. */
  at: number;
}

export interface LifecycleHooks {
  /** Persist the marker where the next page load can see it (the engine relays it to a tab's localStorage). */
  storeMarker(marker: DbMarker): void | Promise<void>;
  /** Reload the page(s): called RELOAD_DELAY_MS after a versionchange closed the database. */
  onReloadRequested(marker: DbMarker): void;
  /** Warning sink; console.warn by default. */
  warn?(message: string): void;
  /** Clock; Date.now by default. */
  now?(): number;
}

export interface DbLifecycle {
  /** True once a versionchange closed the database and a reload is pending (no reopen is attempted then). */
  readonly reloadPending: boolean;
  /**
   * Run a database operation; if it fails because the database is closed, reopen after REOPEN_DELAY_MS and run it
   * once more. The operation must be safe to retry (an aborted transaction wrote nothing).
   */
  withReopen<T>(op: () => Promise<T>): Promise<T>;
  /** Remove the listeners and cancel a pending reload timer. */
  dispose(): void;
}

interface VersionEvent {
  oldVersion: number;
  newVersion: number | null;
}

const specVersion = (native: number | null | undefined): number | null =>
  native === null || native === undefined || native === 0 ? null : Math.round(native) / 10;

export function isDatabaseClosedError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'DatabaseClosedError';
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function installLifecycle(db: Dexie, hooks: LifecycleHooks): DbLifecycle {
  const warn = hooks.warn ?? ((m: string) => console.warn(m));
  const now = hooks.now ?? (() => Date.now());
  let reloadPending = false;
  /** Disposed with its engine: a database closed by the dispose is never opened again (nothing writes after it). */
  let disposed = false;
  let reloadTimer: ReturnType<typeof setTimeout> | null = null;

  const marker = (kind: DbMarkerKind, ev: VersionEvent): DbMarker => ({
    kind,
    dbName: db.name,
    oldVersion: specVersion(ev.oldVersion) ?? 0,
    newVersion: specVersion(ev.newVersion),
    at: now(),
  });

  const store = (m: DbMarker) => {
    try {
      const r = hooks.storeMarker(m);
      if (r instanceof Promise) r.catch((e: unknown) => warn(`Could not store database marker: ${String(e)}`));
    } catch (e) {
      warn(`Could not store database marker: ${String(e)}`);
    }
  };

  const onVersionChange = (ev: VersionEvent): false => {
    const m = marker('versionchange', ev);
    reloadPending = true;
    db.close();
    store(m);
    if (reloadTimer === null) {
      reloadTimer = setTimeout(() => {
        reloadTimer = null;
        hooks.onReloadRequested(m);
      }, RELOAD_DELAY_MS);
    }
    return false; // handled: stop Dexie's default handler
  };

  const onBlocked = (ev: VersionEvent): void => {
    const m = marker('blocked', ev);
    store(m);
    warn(
      `Upgrade of database '${db.name}' to version ${m.newVersion ?? '(delete)'} is blocked by another tab holding version ${m.oldVersion}; close other tabs of this app.`,
    );
  };

  db.on('versionchange', onVersionChange);
  db.on('blocked', onBlocked);

  return {
    get reloadPending() {
      return reloadPending;
    },
    async withReopen<T>(op: () => Promise<T>): Promise<T> {
      try {
        return await op();
      } catch (e) {
        if (!isDatabaseClosedError(e) || reloadPending || disposed) throw e;
        await delay(REOPEN_DELAY_MS);
        if (disposed) throw e;
        if (!db.isOpen()) await db.open();
        return op();
      }
    },
    dispose() {
      disposed = true;
      db.on('versionchange').unsubscribe(onVersionChange);
      db.on('blocked').unsubscribe(onBlocked);
      if (reloadTimer !== null) clearTimeout(reloadTimer);
      reloadTimer = null;
    },
  };
}
