/**
 * Unit project setup file: a PGlite that would run initdb (in memory, or in a folder that holds no cluster yet)
 * starts from the fresh cluster pglite-template.global.ts dumped once per run, instead of running initdb again.
 * PGlite itself builds an in-memory database by loading initdb's dump, so the database a test gets is the same;
 * only the initdb run is saved. A folder that already holds a cluster, or a PGlite given a tarball, is untouched.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';
import { inject, vi } from 'vitest';

vi.mock('@electric-sql/pglite', async (importOriginal) => {
  const real = await importOriginal<typeof import('@electric-sql/pglite')>();
  let template: Blob | null = null;
  const fresh = (): Blob => (template ??= new Blob([readFileSync(inject('pgliteTemplate'))]));
  class PGlite extends real.PGlite {
    constructor(dataDirOrOptions?: string | PGliteOptions, options: PGliteOptions = {}) {
      if (typeof dataDirOrOptions === 'object') super(dataDirOrOptions);
      else if (options.loadDataDir !== undefined || options.fs !== undefined) super(dataDirOrOptions, options);
      else if (dataDirOrOptions === undefined) super({ ...options, loadDataDir: fresh() });
      else if (dataDirOrOptions.includes('://') || existsSync(join(dataDirOrOptions, 'PG_VERSION'))) super(dataDirOrOptions, options);
      else super(dataDirOrOptions, { ...options, loadDataDir: fresh() });
    }
  }
  return { ...real, PGlite };
});
