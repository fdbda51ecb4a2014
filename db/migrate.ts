import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { DatabaseHandle } from './client.ts';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Applies every pending migration of the one migration history, on either driver. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  if (handle.driver === 'postgres') {
    await migratePostgres(handle.db as never, { migrationsFolder });
  } else {
    await migratePglite(handle.db as never, { migrationsFolder });
  }
}
