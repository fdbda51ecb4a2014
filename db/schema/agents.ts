import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

/** Agent definitions. DELETE archives (irreversible) and releases the key. */
export const agents = pgTable(
  'agents',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    key: text('key').notNull(),
    name: text('name').notNull(),
    // Empty input is stored as none and shown as "" (spec 1 "Agent").
    description: text('description'),
    latestVersionId: uuid('latest_version_id'),
    latestVersion: integer('latest_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestampColumn('deleted_at'),
  },
  (table) => [
    uniqueIndex('agents_live_key')
      .on(table.projectId, table.key)
      .where(sql`${table.deletedAt} is null`),
    index('agents_project_idx').on(table.projectId, table.createdAt),
  ],
);

/** Immutable agent versions; `config` is stored with defaults applied, exactly as hashed. */
export const agentVersions = pgTable(
  'agent_versions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    contentHash: text('content_hash').notNull(),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('agent_versions_agent_version').on(table.agentId, table.version),
    uniqueIndex('agent_versions_agent_hash').on(table.agentId, table.contentHash),
    index('agent_versions_project_idx').on(table.projectId, table.createdAt),
  ],
);
