import { integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, organizationId, projectId } from './columns.ts';
import { principals } from './principals.ts';

/**
 * Stored public responses of mutations, keyed by principal, route and key. The row is written
 * in the same transaction as the effect, so a crash never leaves an effect without its record.
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    principalId: uuid('principal_id')
      .notNull()
      .references(() => principals.id, { onDelete: 'cascade' }),
    route: text('route').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    organizationId: organizationId(),
    projectId: projectId(),
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.principalId, table.route, table.idempotencyKey] })],
);
