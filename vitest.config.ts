import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '.data/**', '.tools/**', '.peers/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // Integration suites share one Postgres server and one Temporal dev server; running files
    // one at a time keeps them deterministic on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
