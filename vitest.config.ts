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
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
