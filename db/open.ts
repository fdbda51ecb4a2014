import * as path from 'node:path';
import type { Settings } from '../config/settings.ts';
import { openDatabase, type DatabaseHandle } from './client.ts';
import { migrateDatabase } from './migrate.ts';

/** `DATABASE_URL` (postgres.js) else embedded PGlite under the data dir; migrations applied. */
export async function openConfiguredDatabase(settings: Settings): Promise<DatabaseHandle> {
  const handle = settings.databaseUrl
    ? await openDatabase({ driver: 'postgres', url: settings.databaseUrl })
    : await openDatabase({ driver: 'pglite', dataDir: path.join(settings.dataDir, 'pglite') });
  await migrateDatabase(handle);
  return handle;
}
