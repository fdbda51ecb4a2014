import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base, { sharedTestOptions } from '../../vitest.config.ts';

/**
 * Only for `npm run test:soak`: the project's test setup (Postgres, Temporal) around
 * soak.run.ts, a file `npm test` never picks up. SOAK_MINUTES (default 10) and SOAK_CLIENTS (8).
 */
export default defineConfig({
  ...base,
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: { ...sharedTestOptions, include: ['test/soak/soak.run.ts'], testTimeout: 0 },
});
