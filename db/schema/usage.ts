import { bigint, date, integer, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { organizationId, projectId } from './columns.ts';

/**
 * The usage ledger's daily rollup: one row per project, UTC day, agent, preset and creating API
 * key, added to in the transaction that completes each model invocation (so it always equals the
 * sum of the completed invocations). `GET /projects/{id}/usage` and the project's monthly budget
 * read it instead of summing invocation rows (docs/decisions/usage-ledger.md). Not a child of
 * sessions: retention removes invocations, not the ledger.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    organizationId: organizationId(),
    projectId: projectId(),
    day: date('day', { mode: 'string' }).notNull(),
    agentId: uuid('agent_id').notNull(),
    preset: text('preset').notNull(),
    apiKeyId: uuid('api_key_id'),
    /** Runs whose first completed model call fell on this day. */
    runs: integer('runs').notNull().default(0),
    invocations: integer('invocations').notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    cacheReadTokens: bigint('cache_read_tokens', { mode: 'number' }).notNull().default(0),
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull().default(0),
    costNanos: bigint('cost_nanos', { mode: 'number' }).notNull().default(0),
  },
  (table) => [unique('usage_daily_key').on(table.projectId, table.day, table.agentId, table.preset, table.apiKeyId).nullsNotDistinct()],
);
