import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          // Generous: on a loaded 2-core machine (other work, CPU hogs) a test that takes 2 s alone can take 60 s.
          // A test waits on conditions, never on a clock; a timeout only ends a test that hangs.
          testTimeout: 120_000,
          // Gateway tests start PGlite (WebAssembly) in beforeAll: seconds on a loaded 2-core machine.
          hookTimeout: 120_000,
          // Two files at a time on 2 cores (Vitest's default is one fewer than the cores): most unit files wait on
          // sockets, child processes and databases, so two overlap well and the suite takes about half the time.
          maxWorkers: 2,
          // expect.poll waits for a condition; its 1 s default is a clock a loaded machine misses (a reload, a
          // worker starting). A longer one only makes a real failure slower to report.
          expect: { poll: { timeout: 30_000 } },
          // In-memory PGlite starts from one initdb run per test run instead of one per database (see the files).
          globalSetup: ['tests/unit/setup/pglite-template.global.ts'],
          setupFiles: ['tests/unit/setup/pglite-template.setup.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          // A browser test is many waits, each allowed up to a minute on a machine under CPU hogs (their own timeouts).
          testTimeout: 240_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // As in the unit project: a reload or an engine start under load takes more than the 1 s default.
          expect: { poll: { timeout: 30_000 } },
          // Each file's gateway opens an in-memory PGlite: from one initdb per run, as in the unit project.
          globalSetup: ['tests/unit/setup/pglite-template.global.ts'],
          setupFiles: ['tests/unit/setup/pglite-template.setup.ts'],
        },
      },
    ],
  },
});
