import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { AttachedMemoryStore } from '../../domain/memory/attachments.ts';
import type { RunState, SessionStatus } from '../../domain/runs/states.ts';
import { agents, agentVersions } from './agents.ts';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

/** A conversation thread: the ordered transcript a session's runs share. */
export const threads = pgTable('threads', {
  id: id(),
  organizationId: organizationId(),
  projectId: projectId(),
  /** The next `messages.sequence` to allocate (under this row's lock). */
  lastMessageSequence: integer('last_message_sequence').notNull().default(0),
  /**
   * What the model last read of this thread, as the vendor counted it (input plus the reply it
   * wrote), through message `contextThroughSequence` (0: not counted yet); a compaction sets it to
   * its estimate of what the model reads after it (docs/decisions/context-compaction.md).
   */
  contextTokens: integer('context_tokens').notNull().default(0),
  contextThroughSequence: integer('context_through_sequence').notNull().default(0),
  createdAt: createdAt(),
});

/**
 * A session pins one agent version and one thread for life; its `status` mirrors the latest
 * run's state (`idle` before its first run). Token counters accumulate over every run
 * (unreported = 0). A fork names the session and run its transcript was copied from.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    threadId: uuid('thread_id')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    agentVersionId: uuid('agent_version_id')
      .notNull()
      .references(() => agentVersions.id, { onDelete: 'cascade' }),
    title: text('title'),
    status: text('status').$type<SessionStatus>().notNull(),
    latestRunId: uuid('latest_run_id'),
    parentSessionId: uuid('parent_session_id'),
    delegateKey: text('delegate_key'),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    cacheReadTokens: bigint('cache_read_tokens', { mode: 'number' }).notNull().default(0),
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull().default(0),
    /** What its model calls cost, in billionths of the installation's currency (domain/usage/cost.ts). */
    costNanos: bigint('cost_nanos', { mode: 'number' }).notNull().default(0),
    /** The session's budget (null: none): before each model call its spend must be below both. */
    budgetMaxCostNanos: bigint('budget_max_cost_nanos', { mode: 'number' }),
    budgetMaxTokens: bigint('budget_max_tokens', { mode: 'number' }),
    /** The context meter (docs/decisions/context-compaction.md): the input of the latest main-thread model call, the model's window, compactions so far. */
    contextLastInputTokens: integer('context_last_input_tokens'),
    contextWindow: integer('context_window'),
    contextCompactions: integer('context_compactions').notNull().default(0),
    /** The memory stores it attached at creation, as they were then (docs/decisions/memory-stores.md); pinned for its life, copied by a fork. */
    memoryStores: jsonb('memory_stores').$type<AttachedMemoryStore[]>().notNull().default([]),
    createdByPrincipalId: uuid('created_by_principal_id'),
    forkedFromSessionId: uuid('forked_from_session_id'),
    forkedFromRunId: uuid('forked_from_run_id'),
    createdAt: createdAt(),
    lastActivityAt: timestampColumn('last_activity_at').notNull().defaultNow(),
    /** Archived: read-only (no new turns), still listed and readable. */
    archivedAt: timestampColumn('archived_at'),
    /** Deleted: gone from every read (404); the rows stay until retention removes them. */
    deletedAt: timestampColumn('deleted_at'),
  },
  (table) => [
    index('sessions_project_activity_idx').on(table.projectId, table.lastActivityAt),
    // Retention: a session tree's delegated sessions, and the cascade from a deleted thread.
    index('sessions_parent_idx')
      .on(table.parentSessionId)
      .where(sql`${table.parentSessionId} is not null`),
    index('sessions_thread_idx').on(table.threadId),
    // Retention purges deleted root sessions whatever the window: found without scanning the rest.
    index('sessions_deleted_idx')
      .on(table.deletedAt)
      .where(sql`${table.deletedAt} is not null and ${table.parentSessionId} is null`),
  ],
);

/**
 * A turn sent with `ifBusy: enqueue | interrupt` while the session's latest run was unsettled:
 * kept in order (`sequence`) until that run settles, when the oldest `pending` one becomes the
 * next run in the settlement's transaction (`started`, with its `runId`), or until it is
 * withdrawn. Its files were uploaded and confirmed when it was accepted (`attachments`).
 */
export const pendingTurns = pgTable(
  'pending_turns',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    sequence: bigint('sequence', { mode: 'number' }).generatedAlwaysAsIdentity(),
    ifBusy: text('if_busy').$type<'enqueue' | 'interrupt'>().notNull(),
    state: text('state').$type<'pending' | 'started' | 'withdrawn'>().notNull(),
    message: text('message').notNull(),
    attachments: jsonb('attachments').$type<Array<Record<string, unknown>>>().notNull(),
    idempotencyKey: text('idempotency_key'),
    createdByPrincipalId: uuid('created_by_principal_id'),
    runId: uuid('run_id'),
    withdrawnReason: text('withdrawn_reason').$type<'withdrawn' | 'interrupted' | 'session_archived' | 'session_deleted'>(),
    createdAt: createdAt(),
    settledAt: timestampColumn('settled_at'),
  },
  (table) => [index('pending_turns_session_idx').on(table.sessionId, table.state, table.sequence)],
);

/** Skill versions copied from the agent version at session creation; never change afterwards. */
export const sessionSkillBindings = pgTable(
  'session_skill_bindings',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    organizationId: organizationId(),
    projectId: projectId(),
    position: integer('position').notNull(),
    skillId: uuid('skill_id').notNull(),
    skillVersionId: uuid('skill_version_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.position] })],
);

export type MessageRole = 'user' | 'assistant' | 'tool';

/**
 * The thread transcript in model-neutral form (`content` holds text, tool calls or a tool
 * result). Public views are redacted by mappers; tool arguments and results never leave raw.
 */
export const messages = pgTable(
  'messages',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    threadId: uuid('thread_id')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    runId: uuid('run_id').notNull(),
    sequence: integer('sequence').notNull(),
    role: text('role').$type<MessageRole>().notNull(),
    content: jsonb('content').$type<Record<string, unknown>>().notNull(),
    /** Idempotency of writers (activities): one message per run step. */
    stepKey: text('step_key').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('messages_thread_sequence').on(table.threadId, table.sequence),
    // Per thread: a fork's thread holds copies of its source's messages, with their run and step.
    uniqueIndex('messages_thread_run_step').on(table.threadId, table.runId, table.stepKey),
    index('messages_run_idx').on(table.runId, table.sequence),
  ],
);

/** Durable runs. `state` changes only through verbs that check the transition. */
export const runs = pgTable(
  'runs',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    threadId: uuid('thread_id')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    agentVersionId: uuid('agent_version_id').notNull(),
    createdByPrincipalId: uuid('created_by_principal_id'),
    state: text('state').$type<RunState>().notNull(),
    inputPublic: jsonb('input_public').$type<{ message: string }>().notNull(),
    idempotencyKey: text('idempotency_key'),
    /** `{errorCode, errorExplanation}` of a failed, cancelled or timed-out run. */
    failure: jsonb('failure').$type<{ errorCode: string; errorExplanation: string } | null>(),
    cancellationRequestedAt: timestampColumn('cancellation_requested_at'),
    admittedAt: timestampColumn('admitted_at'),
    settledAt: timestampColumn('settled_at'),
    /** 48 hours after creation: the wall-time ceiling across execution and approval waits. */
    wallDeadlineAt: timestampColumn('wall_deadline_at').notNull(),
    workflowStartedAt: timestampColumn('workflow_started_at'),
    /** When admission first found the project's running-runs limit reached: the run waits `queued`. */
    admissionDeferredAt: timestampColumn('admission_deferred_at'),
    /** The run's own usage and cost: its completed model calls, added as each completes. */
    modelCalls: integer('model_calls').notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    cacheReadTokens: bigint('cache_read_tokens', { mode: 'number' }).notNull().default(0),
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull().default(0),
    costNanos: bigint('cost_nanos', { mode: 'number' }).notNull().default(0),
    /** The context meter (docs/decisions/context-compaction.md): the input of the latest main-thread model call, the model's window, compactions so far. */
    contextLastInputTokens: integer('context_last_input_tokens'),
    contextWindow: integer('context_window'),
    contextCompactions: integer('context_compactions').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('runs_session_idx').on(table.sessionId, table.createdAt),
    index('runs_project_state_idx').on(table.projectId, table.state),
    // Retention deletes threads: the cascade finds their runs by it.
    index('runs_thread_idx').on(table.threadId),
  ],
);

/** Durable turn budget: one row per model turn id; the count may not pass `maxTurns`. */
export const runTurnReservations = pgTable(
  'run_turn_reservations',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    turnId: text('turn_id').notNull(),
    organizationId: organizationId(),
    projectId: projectId(),
    ordinal: integer('ordinal').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.runId, table.turnId] }),
    // One turn per ordinal: a reservation made without the run's lock (the one-write begin) that
    // raced another fails here instead of passing `maxTurns`.
    uniqueIndex('run_turn_reservations_run_ordinal').on(table.runId, table.ordinal),
  ],
);

/** One row per provider attempt of a model turn (debug `modelInvocations`). */
export const modelInvocations = pgTable(
  'model_invocations',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    turnId: text('turn_id').notNull(),
    attempt: integer('attempt').notNull(),
    status: text('status').$type<'started' | 'succeeded' | 'failed'>().notNull(),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheWriteTokens: integer('cache_write_tokens').notNull().default(0),
    finishReason: text('finish_reason'),
    providerFinishReason: text('provider_finish_reason'),
    errorCode: text('error_code'),
    errorExplanation: text('error_explanation'),
    thinking: text('thinking'),
    /** The model's context window when the catalog knows it (the context meter's scale). */
    contextWindow: integer('context_window'),
    /** What the usage ledger groups by, fixed when the attempt starts. */
    agentId: uuid('agent_id'),
    preset: text('preset'),
    /** The API key that created the run, when a key did. */
    apiKeyId: uuid('api_key_id'),
    /** The attempt's cost at the preset's prices when it completed, in billionths of the currency. */
    costNanos: bigint('cost_nanos', { mode: 'number' }).notNull().default(0),
    startedAt: timestampColumn('started_at').notNull(),
    completedAt: timestampColumn('completed_at'),
  },
  (table) => [uniqueIndex('model_invocations_turn_attempt').on(table.runId, table.turnId, table.attempt)],
);
