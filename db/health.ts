import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { sql } from 'drizzle-orm';
import { rowsOf, type DatabaseHandle } from './client.ts';
import { migrationsFolder } from './migrate.ts';

/** The newest migration this code ships (drizzle's journal), read once. */
const newestMigrationAt: number = (() => {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> };
  return Math.max(...journal.entries.map((entry) => entry.when));
})();

/**
 * Readiness probes of the database: it answers a query; and every migration this code ships has
 * been applied (drizzle records each in `drizzle.__drizzle_migrations` with its journal time).
 */
export function databaseProbes(handle: DatabaseHandle): { database: () => Promise<void>; migrations: () => Promise<void> } {
  return {
    async database() {
      await handle.db.execute(sql`select 1`);
    },
    async migrations() {
      const [row] = rowsOf<{ newest: string | number | null }>(
        await handle.db.execute(sql`select max(created_at) as newest from drizzle.__drizzle_migrations`),
      );
      if (row?.newest === null || row?.newest === undefined || Number(row.newest) < newestMigrationAt) throw new Error('migrations pending');
    },
  };
}
