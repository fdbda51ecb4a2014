import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';

export const projects = pgTable(
  'projects',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** Retention overrides in minutes (docs/decisions/project-retention-overrides.md); null = the installation default. */
    sessionRetentionMinutes: integer('session_retention_minutes'),
    eventRetentionMinutes: integer('event_retention_minutes'),
    /** Whether the project's agents answer over the standard agent protocols (docs/decisions/agent-protocol-switches.md), when the installation serves them. */
    a2aEnabled: boolean('a2a_enabled').notNull().default(true),
    mcpServerEnabled: boolean('mcp_server_enabled').notNull().default(true),
    /**
     * Every product event at or below this position has been deleted by retention: a feed cursor
     * below it is answered `410 cursor_expired`. Written only by the event purge (a non-key
     * column, so it never waits on the row's foreign-key share locks).
     */
    /** The monthly budget (null: none), per UTC calendar month; cost in billionths of the currency. */
    budgetMonthlyMaxCostNanos: bigint('budget_monthly_max_cost_nanos', { mode: 'number' }),
    budgetMonthlyMaxTokens: bigint('budget_monthly_max_tokens', { mode: 'number' }),
    eventsPurgedThroughPosition: bigint('events_purged_through_position', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
  },
  (table) => [
    uniqueIndex('projects_organization_slug_key').on(table.organizationId, table.slug),
    index('projects_organization_created_idx').on(table.organizationId, table.createdAt),
  ],
);
