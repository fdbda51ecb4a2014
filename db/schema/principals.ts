import { jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { PrincipalKind } from '../../domain/principals.ts';
import { createdAt, id, organizationId, projectId } from './columns.ts';

/**
 * A project-local identity. The same person (subject) has one principal per project it can
 * act in; an API key gets a mirror principal per project on first use (subject `api_key:<id>`).
 */
export const principals = pgTable(
  'principals',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    kind: text('kind').$type<PrincipalKind>().notNull(),
    subject: text('subject').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    displayName: text('display_name'),
    email: text('email'),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('principals_project_kind_subject_key').on(table.projectId, table.kind, table.subject)],
);
