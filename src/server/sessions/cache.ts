/**
 * token -> session id, with when this process last wrote the session's last_seen_at. The database is the truth
 * (sessions/store.ts); this keeps it off the hot path of /api calls where that is safe:
 *
 * - On embedded PGlite one process owns the database, so every sign-out happens in this process and drops its
 *   session's entries here before it answers (`dropSession`): an entry is trusted until then, or until the touch
 *   interval says to write last_seen_at again (which also finds a deleted session).
 * - On PostgreSQL other gateway processes sign browsers out too, and this process would not know: every /api call
 *   looks its token up (one indexed statement); the entry only spaces out the last_seen_at writes.
 *
 * One cache per database, shared by every app in the process that uses it (tests run several).
 */
import type { Db } from '../db/types';

export interface CacheEntry {
  id: string;
  touchedAt: number;
}

export class SessionCache {
  private readonly map = new Map<string, CacheEntry>();
  /** Goes up with every sign-out: a lookup that started before one does not keep what it found. */
  generation = 0;

  constructor(
    /** The database's answer can be kept (one process owns it). */
    readonly trusted: boolean,
    private readonly max = 10_000,
  ) {}

  get(token: string): CacheEntry | undefined {
    const v = this.map.get(token);
    if (v !== undefined) {
      this.map.delete(token);
      this.map.set(token, v);
    }
    return v;
  }

  set(token: string, entry: CacheEntry): void {
    this.map.delete(token);
    this.map.set(token, entry);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }

  delete(token: string): void {
    this.map.delete(token);
  }

  /**
   * Keeps what a lookup found that began at `generation` (read before it): unless a sign-out committed since, when
   * the answer is from before it and the token is forgotten instead (the next call asks the database again).
   */
  keepFound(token: string, entry: CacheEntry, generation: number): void {
    if (this.generation === generation) this.set(token, entry);
    else this.map.delete(token);
  }

  /** A sign-out of this session committed: its tokens but `keep` are looked up again. */
  dropSession(sessionId: string, keep: string): void {
    this.generation++;
    for (const [token, entry] of this.map) if (entry.id === sessionId && token !== keep) this.map.delete(token);
  }
}

const caches = new WeakMap<Db, SessionCache>();

export function sessionCache(db: Db): SessionCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new SessionCache(db.kind === 'pglite');
    caches.set(db, cache);
  }
  return cache;
}
