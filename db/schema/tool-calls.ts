import type { ToolExecutionRecord } from '../../domain/tool-calls/execution.ts';
import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { ToolCallStatus, ApprovalStatus } from '../../domain/tool-calls/states.ts';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';
import { runs } from './sessions.ts';

/**
 * One row per tool call the model made. Caller tools are claimed under a fence (a random
 * positive integer below 10^15, a new one on every claim) by `claimedByPrincipalId`; only that
 * principal with the current fence may renew, release or submit.
 * `safeResult` is immutable once written. `attempt` counts calls of this tool in the run (three
 * per tool per run).
 */
export const toolCalls = pgTable(
  'tool_calls',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id').notNull(),
    turnId: text('turn_id').notNull(),
    providerCallId: text('provider_call_id').notNull(),
    toolName: text('tool_name').notNull(),
    owner: text('owner').$type<'caller' | 'platform'>().notNull(),
    approvalRequired: boolean('approval_required').notNull().default(false),
    status: text('status').$type<ToolCallStatus>().notNull(),
    attempt: integer('attempt').notNull(),
    safeArguments: jsonb('safe_arguments'),
    safeResult: jsonb('safe_result'),
    failure: jsonb('failure').$type<{ code: string; path?: string; message: string; reason?: string } | null>(),
    /** How the worker ran a platform tool, for the debug record (an MCP call's server, policy, timing). */
    execution: jsonb('execution').$type<ToolExecutionRecord | null>(),
    fence: bigint('fence', { mode: 'number' }).notNull().default(0),
    leaseExpiresAt: timestampColumn('lease_expires_at'),
    claimedByPrincipalId: uuid('claimed_by_principal_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: timestampColumn('completed_at'),
  },
  (table) => [
    uniqueIndex('tool_calls_run_turn_call').on(table.runId, table.turnId, table.providerCallId),
    index('tool_calls_project_status_idx').on(table.projectId, table.status),
  ],
);

/** Approval gates: `expiresAt` is 24 h after creation and authoritative; decided once. */
export const approvals = pgTable(
  'approvals',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    // The run's session, so the approval's events name it like every other session event.
    sessionId: uuid('session_id').notNull(),
    toolCallId: uuid('tool_call_id')
      .notNull()
      .references(() => toolCalls.id, { onDelete: 'cascade' }),
    status: text('status').$type<ApprovalStatus>().notNull(),
    expiresAt: timestampColumn('expires_at').notNull(),
    note: text('note'),
    decidedByPrincipalId: uuid('decided_by_principal_id'),
    decidedAt: timestampColumn('decided_at'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('approvals_tool_call').on(table.toolCallId),
    index('approvals_project_status_idx').on(table.projectId, table.status),
    // Retention deletes runs: the cascade finds their approvals by it.
    index('approvals_run_idx').on(table.runId),
  ],
);
