import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, organizationId, projectId, timestampColumn } from './columns.ts';
import { projects } from './projects.ts';

/**
 * The durable product event log. `project_position` is allocated from
 * `project_event_counters` under its row lock inside the writing transaction, so positions are
 * gap-free and commit in increasing order per project.
 */
export const productEvents = pgTable(
  'product_events',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    projectPosition: bigint('project_position', { mode: 'bigint' }).notNull(),
    aggregateType: text('aggregate_type').notNull(),
    aggregateId: uuid('aggregate_id').notNull(),
    aggregateSequence: integer('aggregate_sequence').notNull(),
    kind: text('kind').notNull(),
    publicPayload: jsonb('public_payload').$type<Record<string, unknown>>().notNull(),
    // Message content for `message.created`; only sent where a consumer opted in.
    message: jsonb('message').$type<Record<string, unknown>>(),
    // The session the event belongs to (its payload's `sessionId`), null for project-level events
    // (agents, Skills, ...): the session stream reads its events by it, never the whole log.
    sessionId: uuid('session_id'),
    occurredAt: timestampColumn('occurred_at').notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('product_events_project_position_key').on(table.projectId, table.projectPosition),
    index('product_events_session_position_idx')
      .on(table.projectId, table.sessionId, table.projectPosition)
      .where(sql`${table.sessionId} is not null`),
    uniqueIndex('product_events_aggregate_sequence_key').on(table.projectId, table.aggregateType, table.aggregateId, table.aggregateSequence),
  ],
);

export const projectEventCounters = pgTable('project_event_counters', {
  projectId: uuid('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  organizationId: organizationId(),
  lastPosition: bigint('last_position', { mode: 'bigint' }).notNull(),
});

export const aggregateEventCounters = pgTable(
  'aggregate_event_counters',
  {
    projectId: projectId(),
    aggregateType: text('aggregate_type').notNull(),
    aggregateId: uuid('aggregate_id').notNull(),
    lastSequence: integer('last_sequence').notNull(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.aggregateType, table.aggregateId] })],
);
