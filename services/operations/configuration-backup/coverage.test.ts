import { readdirSync } from 'node:fs';
import { getTableName, is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as schema from '../../../db/schema/index.ts';
import { BackupFile } from '../../../domain/configuration-backup/format.ts';
import { BACKED_UP, BACKED_UP_NAMES, NOT_BACKED_UP, type BackedUpName, type BackedUpTable } from './coverage.ts';
import type { CredentialKind } from './coverage.ts';

/**
 * The backup's coverage list (coverage.ts, README.md) against the schema: a new table that
 * belongs to an organization fails here until it is backed up or excluded with a reason.
 */
const tables = new Map<string, PgTable>(
  Object.values(schema as Record<string, unknown>).flatMap((value) => (is(value, PgTable) ? [[getTableName(value), value] as const] : [])),
);
const columns = (table: PgTable) => getTableConfig(table).columns.map((column) => column.name);
const references = (table: PgTable) => getTableConfig(table).foreignKeys.map((key) => getTableName(key.reference().foreignTable));

/** Tables with an `organization_id` or `project_id` column, and every table hanging off one by a foreign key. */
function tenantScoped(): Set<string> {
  const scoped = new Set(
    [...tables].filter(([, table]) => columns(table).some((name) => name === 'organization_id' || name === 'project_id')).map(([name]) => name),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, table] of tables) {
      if (scoped.has(name) || !references(table).some((target) => scoped.has(target))) continue;
      scoped.add(name);
      grew = true;
    }
  }
  return scoped;
}

const backedUp = BACKED_UP_NAMES.map((name) => {
  const entry: BackedUpTable = BACKED_UP[name];
  return { name, ...entry, tableName: getTableName(entry.table) };
});
const backedUpTables = new Set(backedUp.map((entry) => entry.tableName));
const excludedTables = new Set(Object.keys(NOT_BACKED_UP));

describe('configuration backup coverage', () => {
  it('reads the schema', () => {
    expect(tables.size).toBeGreaterThan(40);
    expect(tenantScoped().has('agents')).toBe(true);
  });

  it('every table of an organization is backed up or explicitly not backed up', () => {
    const missing = [...tenantScoped()].filter((name) => !backedUpTables.has(name) && !excludedTables.has(name)).sort();
    expect(
      missing,
      `Table(s) ${missing.join(', ')} belong to an organization but services/operations/configuration-backup/coverage.ts neither backs them up (BACKED_UP) nor excludes them (NOT_BACKED_UP); see services/operations/configuration-backup/README.md`,
    ).toEqual([]);
  });

  it('names only tables that exist and belong to an organization, each in one list only', () => {
    const scoped = tenantScoped();
    const stale = [...backedUpTables, ...excludedTables].filter((name) => !scoped.has(name)).sort();
    expect(stale, `coverage.ts names table(s) that are not in db/schema (or hold no organization data): ${stale.join(', ')}`).toEqual([]);
    const both = [...backedUpTables].filter((name) => excludedTables.has(name));
    expect(both, `coverage.ts both backs up and excludes: ${both.join(', ')}`).toEqual([]);
    expect(backedUpTables.size, 'a table is backed up twice').toBe(backedUp.length);
  });

  it('gives each exclusion a one-line reason', () => {
    const unexplained = Object.entries(NOT_BACKED_UP)
      .filter(([, reason]) => reason.trim() === '' || reason.includes('\n'))
      .map(([name]) => name);
    expect(unexplained).toEqual([]);
  });

  it('db/schema/index.ts exports every table of db/schema (drizzle-kit and this check read only the index)', async () => {
    const dir = new URL('../../../db/schema/', import.meta.url);
    const files = readdirSync(dir).filter((file) => file.endsWith('.ts') && file !== 'index.ts' && !file.endsWith('.test.ts'));
    const unexported: string[] = [];
    for (const file of files) {
      const module: Record<string, unknown> = await import(new URL(file, dir).href);
      for (const value of Object.values(module))
        if (is(value, PgTable) && tables.get(getTableName(value)) !== value) unexported.push(`${file}: ${getTableName(value)}`);
    }
    expect(unexported).toEqual([]);
  });

  it('backs up tables the export can read by organization, project tables under projects[] of the file', () => {
    for (const entry of backedUp) {
      const names = columns(entry.table);
      expect(names, `${entry.tableName} has no organization_id`).toContain('organization_id');
      expect(entry.file.startsWith('projects[].'), `${entry.tableName} (${entry.file}): project tables belong under projects[]`).toBe(
        names.includes('project_id'),
      );
    }
  });

  it('lists backed-up tables parents first (the restore inserts in this order), referring to nothing it does not restore', () => {
    const seen = new Set(['organizations']);
    for (const entry of backedUp) {
      for (const target of references(entry.table)) {
        expect(seen.has(target) || target === entry.tableName, `${entry.tableName} refers to ${target}, which the restore has not written before it`).toBe(
          true,
        );
      }
      seen.add(entry.tableName);
    }
  });

  it('maps every list of entries in the backup file to exactly one backed-up table, and no table to a list the file lacks', () => {
    const lists = entryLists(BackupFile);
    expect(lists).toContain('projects[].agents[].versions[]');
    const files = backedUp.map((entry) => entry.file);
    const unclaimed = lists.filter((list) => !files.includes(list));
    expect(
      unclaimed,
      `The backup file (domain/configuration-backup/format.ts) has lists of entries no backed-up table in coverage.ts fills: ${unclaimed.join(', ')}`,
    ).toEqual([]);
    const absent = backedUp.filter((entry) => !lists.includes(entry.file)).map((entry) => `${entry.name} → ${entry.file}`);
    expect(absent, `coverage.ts maps tables to lists the backup file does not have: ${absent.join(', ')}`).toEqual([]);
    expect(new Set(files).size, 'two backed-up tables fill the same list of the file').toBe(files.length);
  });

  it('has one backed-up table for each kind of secret a restore asks for', () => {
    type Declared = { [K in BackedUpName]: (typeof BACKED_UP)[K] extends { credential: infer C } ? C : never }[BackedUpName];
    expectTypeOf<Exclude<CredentialKind, Declared>>().toBeNever();
    const declared = backedUp.flatMap((entry) => entry.credential ?? []);
    expect(new Set(declared).size).toBe(declared.length);
  });
});

/**
 * The paths of the file's lists of entries (arrays of objects with a file-local `id`), e.g.
 * `projects[].agents[].versions[]`, read from the valibot schema.
 */
function entryLists(schema: unknown, path = ''): string[] {
  const node = schema as { type?: string; entries?: Record<string, unknown>; item?: unknown; wrapped?: unknown };
  switch (node.type) {
    case 'object':
    case 'strict_object':
    case 'loose_object':
      return Object.entries(node.entries!).flatMap(([key, value]) => entryLists(value, path ? `${path}.${key}` : key));
    case 'nullable':
    case 'optional':
    case 'nullish':
      return entryLists(node.wrapped, path);
    case 'array': {
      const item = node.item as { entries?: Record<string, unknown> };
      const own = item.entries && 'id' in item.entries ? [`${path}[]`] : [];
      return [...own, ...entryLists(node.item, `${path}[]`)];
    }
    default:
      return [];
  }
}
