import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

export type SkillFile = { path: string; contentType: string; dataBase64: string };
export type SkillVersionStatus = 'active' | 'deprecated' | 'revoked';

/** Skills: enabled/disabled, removable (key freed; versions and bindings stay). */
export const skills = pgTable(
  'skills',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    disabledAt: timestampColumn('disabled_at'),
    latestVersion: integer('latest_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestampColumn('deleted_at'),
  },
  (table) => [
    uniqueIndex('skills_live_key')
      .on(table.projectId, table.key)
      .where(sql`${table.deletedAt} is null`),
    index('skills_project_idx').on(table.projectId, table.createdAt),
  ],
);

/** Immutable Skill versions with their package (Markdown files, base64, exact bytes). */
export const skillVersions = pgTable(
  'skill_versions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    skillId: uuid('skill_id')
      .notNull()
      .references(() => skills.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    instructions: text('instructions').notNull(),
    license: text('license'),
    compatibility: text('compatibility'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    allowedTools: jsonb('allowed_tools').$type<string[]>().notNull(),
    files: jsonb('files').$type<SkillFile[]>().notNull(),
    contentHash: text('content_hash').notNull(),
    status: text('status').$type<SkillVersionStatus>().notNull().default('active'),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('skill_versions_skill_version').on(table.skillId, table.version),
    index('skill_versions_project_idx').on(table.projectId, table.createdAt),
  ],
);

/** Mutable Skill drafts (never exported in backups); optionally cloned from a version. */
export const skillDrafts = pgTable(
  'skill_drafts',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    skillId: uuid('skill_id').references(() => skills.id, { onDelete: 'cascade' }),
    sourceSkillVersionId: uuid('source_skill_version_id'),
    name: text('name'),
    description: text('description'),
    instructions: text('instructions'),
    license: text('license'),
    compatibility: text('compatibility'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    allowedTools: jsonb('allowed_tools').$type<string[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('skill_drafts_project_idx').on(table.projectId, table.createdAt)],
);

/** A draft's folders and files, by package-relative path. */
export const skillDraftEntries = pgTable(
  'skill_draft_entries',
  {
    draftId: uuid('draft_id')
      .notNull()
      .references(() => skillDrafts.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
    projectId: projectId(),
    path: text('path').notNull(),
    kind: text('kind').$type<'directory' | 'file'>().notNull(),
    contentType: text('content_type'),
    dataBase64: text('data_base64'),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.draftId, table.path] })],
);
