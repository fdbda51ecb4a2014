import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, organizationId, projectId } from './columns.ts';
import { runs, threads } from './sessions.ts';
import { toolCalls } from './tool-calls.ts';

/**
 * One Harness Operation call: the tool call that invoked it and the thread its focused sub-loop
 * writes (task, assistant turns, tool results), apart from the session's own thread.
 */
export const harnessOperationCalls = pgTable(
  'harness_operation_calls',
  {
    toolCallId: uuid('tool_call_id')
      .primaryKey()
      .references(() => toolCalls.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
    projectId: projectId(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    operationKey: text('operation_key').notNull(),
    threadId: uuid('thread_id')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  // Retention finds a run's operation threads by run, and the thread cascade finds the call by thread.
  (table) => [index('harness_operation_calls_run_idx').on(table.runId), index('harness_operation_calls_thread_idx').on(table.threadId)],
);
