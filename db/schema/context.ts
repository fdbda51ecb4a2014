import { sql } from 'drizzle-orm';
import { integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, projectId } from './columns.ts';
import { runs, threads } from './sessions.ts';

/**
 * Context compactions (docs/decisions/context-compaction.md): one row per compaction step of a
 * run (`stepKey`: the turn, its attempt and why), keyed so a retried step writes nothing twice.
 * An accepted one holds the summary that replaces, in what the model reads, every message of the
 * thread up to `throughSequence` (the messages themselves never change); `number` counts the
 * thread's accepted compactions from 1. A rejected one (an empty summary, or one no shorter than
 * what it would replace) holds why, and counts against the run's `maxCompactionsPerRun`.
 */
export const contextCompactions = pgTable(
  'context_compactions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    threadId: uuid('thread_id')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id').notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    turnId: text('turn_id').notNull(),
    stepKey: text('step_key').notNull(),
    reason: text('reason').$type<'threshold' | 'overflow'>().notNull(),
    status: text('status').$type<'accepted' | 'rejected'>().notNull(),
    number: integer('number'),
    summary: text('summary'),
    rejection: text('rejection'),
    throughSequence: integer('through_sequence').notNull(),
    messagesCovered: integer('messages_covered').notNull(),
    tokensBefore: integer('tokens_before').notNull(),
    tokensAfter: integer('tokens_after').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('context_compactions_run_step').on(table.runId, table.stepKey),
    uniqueIndex('context_compactions_thread_number')
      .on(table.threadId, table.number)
      .where(sql`${table.number} is not null`),
  ],
);
