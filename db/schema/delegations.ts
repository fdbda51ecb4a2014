import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, projectId, timestampColumn } from './columns.ts';
import { runs, sessions } from './sessions.ts';
import { toolCalls } from './tool-calls.ts';

/**
 * A delegation relation: a coordinator session's child session for one delegate key, pinned to
 * the delegate's exact agent version and sharing the coordinator's workspace. Created once per
 * key; `closedAt` ends it for further messages.
 */
export const delegations = pgTable(
  'delegations',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    coordinatorSessionId: uuid('coordinator_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    delegateKey: text('delegate_key').notNull(),
    childSessionId: uuid('child_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    childAgentVersionId: uuid('child_agent_version_id').notNull(),
    createdAt: createdAt(),
    closedAt: timestampColumn('closed_at'),
  },
  (table) => [
    // A key may have several children (issue 49: parallel delegation); each is its own relation.
    index('delegations_coordinator_key').on(table.coordinatorSessionId, table.delegateKey),
    // Retention deletes sessions: the cascade finds the relations naming them as child by it.
    index('delegations_child_session_idx').on(table.childSessionId),
  ],
);

/** One `delegate_agent` or `message_agent` call and the child run it queued. */
export const delegationCalls = pgTable(
  'delegation_calls',
  {
    toolCallId: uuid('tool_call_id')
      .primaryKey()
      .references(() => toolCalls.id, { onDelete: 'cascade' }),
    delegationId: uuid('delegation_id')
      .notNull()
      .references(() => delegations.id, { onDelete: 'cascade' }),
    childRunId: uuid('child_run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  // Retention's cascades from deleted relations and runs.
  (table) => [index('delegation_calls_delegation_idx').on(table.delegationId), index('delegation_calls_child_run_idx').on(table.childRunId)],
);
