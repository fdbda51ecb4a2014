import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, projectId } from './columns.ts';

/** The audit trail: who did what to which target. Never holds a secret or a full URL. */
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    principalId: uuid('principal_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    requestId: text('request_id'),
    occurredAt: createdAt(),
  },
  (table) => [index('audit_entries_project_occurred_idx').on(table.projectId, table.occurredAt)],
);
