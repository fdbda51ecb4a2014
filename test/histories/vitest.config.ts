import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base, { sharedTestOptions } from '../../vitest.config.ts';

/**
 * Only for recording the golden histories (see README.md): the project's test setup (Postgres,
 * Temporal, S3, bubblewrap) around record.histories.ts, a file `npm test` never picks up.
 */
export default defineConfig({
  ...base,
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: { ...sharedTestOptions, include: ['test/histories/record.histories.ts'], testTimeout: 300_000 },
});
