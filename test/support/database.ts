import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.ts';
import { migrateDatabase } from '../../db/migrate.ts';
import { withDatabase } from './postgres-server.ts';

export type TestDatabase = DatabaseHandle & { url: string | undefined; drop(): Promise<void> };

/**
 * A fresh, migrated database for one test file: a clone of the run's template on PostgreSQL,
 * or an in-memory PGlite when no server answers.
 */
export async function createTestDatabase(options: { maxConnections?: number } = {}): Promise<TestDatabase> {
  const provided = inject('database');
  if (provided.kind === 'pglite') {
    const handle = await openDatabase({ driver: 'pglite' });
    await migrateDatabase(handle);
    return { ...handle, url: undefined, drop: () => handle.close() };
  }
  const name = `${provided.runId}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}" template "${provided.template}"`);
  const url = withDatabase(provided.adminUrl, name);
  const handle = await openDatabase({ driver: 'postgres', url, maxConnections: options.maxConnections ?? 10 });
  return {
    ...handle,
    url,
    async drop() {
      await handle.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
