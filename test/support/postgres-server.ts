import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase } from '../../db/client.ts';
import { migrateDatabase } from '../../db/migrate.ts';

export type ProvidedDatabase = { kind: 'postgres'; adminUrl: string; template: string; runId: string } | { kind: 'pglite' };

declare module 'vitest' {
  export interface ProvidedContext {
    database: ProvidedDatabase;
  }
}

const defaultAdminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Uses the machine's PostgreSQL when it answers (TEST_DATABASE_URL or 127.0.0.1:5432): a fresh
 * template database per run, migrated once, dropped with every clone at the end. Otherwise
 * every test database is an in-memory PGlite.
 */
export async function startTestDatabaseServer(): Promise<{ provided: ProvidedDatabase; stop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? defaultAdminUrl;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin`select 1`;
  } catch {
    await admin.end({ timeout: 1 }).catch(() => {});
    return { provided: { kind: 'pglite' }, stop: async () => {} };
  }
  const runId = `svc_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const template = `${runId}_template`;
  await admin.unsafe(`create database "${template}"`);
  const handle = await openDatabase({ driver: 'postgres', url: withDatabase(adminUrl, template), maxConnections: 1 });
  await migrateDatabase(handle);
  await handle.close();
  return {
    provided: { kind: 'postgres', adminUrl, template, runId },
    async stop() {
      const rows = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${runId + '%'}`;
      for (const { datname } of rows) {
        await admin.unsafe(`drop database if exists "${datname}" with (force)`);
      }
      await admin.end({ timeout: 5 });
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
