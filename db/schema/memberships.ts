import { pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import type { Role } from '../../domain/scopes.ts';
import { createdAt, organizationId, projectId } from './columns.ts';
import { principals } from './principals.ts';

/** A subject's role in the organization (owner, admin, member, viewer). */
export const organizationMemberships = pgTable(
  'organization_memberships',
  {
    organizationId: organizationId(),
    subject: text('subject').notNull(),
    role: text('role').$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.subject] })],
);

/** A principal's role in its project. Removing it removes access, not the principal row. */
export const projectMemberships = pgTable(
  'project_memberships',
  {
    organizationId: organizationId(),
    projectId: projectId(),
    principalId: uuid('principal_id')
      .notNull()
      .references(() => principals.id, { onDelete: 'cascade' }),
    role: text('role').$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.principalId] })],
);
