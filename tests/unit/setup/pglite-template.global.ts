/**
 * Unit project global setup: one freshly initialised PGlite cluster, dumped to a tarball once per run.
 *
 * `new PGlite()` with no data directory runs initdb in a second PGlite instance, dumps that cluster to a tarball
 * and loads the tarball into the new instance (PGlite's own code does exactly this). That initdb is most of the
 * cost of opening an in-memory database: about 3-4 s on a loaded 2-core machine, 15 s and more under CPU hogs,
 * and the unit tests open hundreds. `pglite-template.setup.ts` hands this tarball to every in-memory PGlite of the
 * unit tests instead, so each starts from the same fresh cluster initdb gives, without running initdb again.
 * Migrations still run on every database as they do in the gateway.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the tarball of a freshly initialised PGlite cluster (see pglite-template.global.ts). */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const pg = new PGlite();
  await pg.waitReady;
  const tarball = await pg.dumpDataDir('none');
  await pg.close();
  const dir = mkdtempSync(join(tmpdir(), 'parley-pglite-template-'));
  const path = join(dir, 'pgdata.tar');
  writeFileSync(path, new Uint8Array(await tarball.arrayBuffer()));
  project.provide('pgliteTemplate', path);
  return () => rmSync(dir, { recursive: true, force: true });
}
