import type { TestProject } from 'vitest/node';
import { startTestDatabaseServer } from './postgres-server.ts';
import { startTestTemporal } from './temporal-server.ts';

/**
 * Once per `vitest` run: a migrated template database on the machine's PostgreSQL (or the
 * PGlite fallback) and one real Temporal dev server. Test files clone what they need.
 */
export default async function setup(project: TestProject) {
  const database = await startTestDatabaseServer();
  project.provide('database', database.provided);
  const temporal = await startTestTemporal();
  project.provide('temporal', temporal.provided);
  return async () => {
    await temporal.stop();
    await database.stop();
  };
}
