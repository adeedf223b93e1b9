import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { migrate } from './migrations';
import { openPglite } from './pglite';
import { openPgliteThread } from './pglite-thread';
import { openPostgres } from './postgres';
import type { Db } from './types';

/** `thread`: PGlite runs in a thread of its own (./pglite-thread.ts) rather than on the caller's. */
export type DbTarget =
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite'; dataDir: string; thread?: boolean }
  | { kind: 'memory'; thread?: boolean };

/** The folder PGlite keeps its files in, inside the gateway data folder. */
export function pgliteDir(dataDir: string): string {
  return join(resolve(dataDir), 'pglite');
}

/** Opens the database and applies pending migrations. */
export async function openDatabase(target: DbTarget): Promise<Db> {
  let db: Db;
  if (target.kind === 'postgres') db = await openPostgres(target.url);
  else if (target.kind === 'pglite') {
    const dir = pgliteDir(target.dataDir);
    mkdirSync(dir, { recursive: true });
    db = target.thread === true ? await openPgliteThread(dir) : await openPglite(dir);
  } else db = target.thread === true ? await openPgliteThread() : await openPglite();
  try {
    await migrate(db);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}
