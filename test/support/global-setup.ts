import type { TestProject } from 'vitest/node';
import { startTestDatabaseServer } from './postgres-server.ts';
import { startTestS3 } from './s3-server.ts';
import { ensureTestPackages } from './system-packages.ts';
import { startTestTemporal } from './temporal-server.ts';
import { ensureConsoleBundle } from '../../console/build.ts';

/**
 * Once per `vitest` run: a migrated template database on the machine's PostgreSQL (or the
 * PGlite fallback), one real Temporal dev server and one S3-compatible server (moto), with the
 * sandbox's Debian packages (bubblewrap, socat, chromium) installed and the console built first.
 * Test files clone what they need.
 */
export default async function setup(project: TestProject) {
  // Before any server starts: a failed install then leaves nothing running.
  await ensureTestPackages();
  // The console's bundle (Vite), when missing or stale: the browser tests and `/` serve it.
  await ensureConsoleBundle();
  const database = await startTestDatabaseServer();
  project.provide('database', database.provided);
  const temporal = await startTestTemporal();
  project.provide('temporal', temporal.provided);
  const s3 = await startTestS3().catch(async (error: unknown) => {
    // The first run installs moto, which can fail: do not leave the other servers running.
    await temporal.stop();
    await database.stop();
    throw error;
  });
  project.provide('s3', s3.provided);
  return async () => {
    await s3.stop();
    await temporal.stop();
    await database.stop();
  };
}
