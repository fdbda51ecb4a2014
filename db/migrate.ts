import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { LOCKS, type DatabaseHandle } from './client.ts';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies every pending migration of the one migration history, on either driver, one process
 * at a time (several API and worker processes may start together against one server).
 */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  await handle.exclusively(LOCKS.migrations, async () => {
    if (handle.driver === 'postgres') {
      await migratePostgres(handle.db as never, { migrationsFolder });
    } else {
      await migratePglite(handle.db as never, { migrationsFolder });
    }
  });
}
