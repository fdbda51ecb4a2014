import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { ScheduleMemoryStore } from '../../domain/schedules/inputs.ts';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

export type ScheduleOverlap = 'skip' | 'buffer_one' | 'allow_all';
export type ScheduleTarget = 'new_session' | 'session';

/**
 * An agent that runs on a schedule, backed by one Temporal Schedule (id `schedule-<id>`). Each
 * firing opens a session (`new_session`) or sends a turn to `sessionId` (`session`), acting as
 * `actingPrincipalId`, whose `run:create` is checked at each firing.
 * `agentVersionId` pins a version; without it each firing uses the agent's latest.
 */
export const schedules = pgTable(
  'schedules',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    name: text('name'),
    agentId: uuid('agent_id').notNull(),
    agentVersionId: uuid('agent_version_id'),
    /** Exactly one of `cron` and `intervalSeconds`. */
    cron: text('cron'),
    intervalSeconds: integer('interval_seconds'),
    timeZone: text('time_zone').notNull(),
    message: text('message').notNull(),
    /** Uploaded files each firing attaches (`{uploadId}` references). */
    files: jsonb('files').$type<Array<Record<string, unknown>>>().notNull(),
    overlap: text('overlap').$type<ScheduleOverlap>().notNull(),
    catchupWindowSeconds: integer('catchup_window_seconds').notNull(),
    target: text('target').$type<ScheduleTarget>().notNull(),
    sessionId: uuid('session_id'),
    /** For `target: session`: a firing while the session is busy is enqueued or skipped. */
    ifBusy: text('if_busy').$type<'enqueue' | 'skip'>(),
    /**
     * For `target: new_session`: the memory stores each new session attaches (`{storeId, access,
     * instructions}`, as `POST /sessions` takes them), checked again at each firing.
     */
    memoryStores: jsonb('memory_stores').$type<ScheduleMemoryStore[]>().notNull().default([]),
    paused: boolean('paused').notNull().default(false),
    /**
     * Raised by every change (patch, pause, unpause, delete). The Temporal Schedule is a
     * projection of the row: `temporalRevision` is the revision it is known to match (null: not
     * yet created), so the worker's reconciler finds every row whose projection is behind.
     */
    revision: integer('revision').notNull().default(1),
    temporalRevision: integer('temporal_revision'),
    createdByPrincipalId: uuid('created_by_principal_id').notNull(),
    /**
     * The principal each firing acts as: who last changed what the schedule does (its message,
     * files, agent or version, target or session, memory stores); the creator until then (domain/schedules/authority.ts).
     */
    actingPrincipalId: uuid('acting_principal_id').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestampColumn('deleted_at'),
  },
  (table) => [
    index('schedules_project_created_idx')
      .on(table.projectId, table.createdAt)
      .where(sql`${table.deletedAt} is null`),
    // What the reconciler scans: only rows whose Temporal Schedule is behind (a handful at most).
    index('schedules_unsynced_idx')
      .on(table.updatedAt)
      .where(sql`${table.temporalRevision} is distinct from ${table.revision}`),
  ],
);

/**
 * One row per firing, written in the transaction that creates its session or run: the unique
 * `(scheduleId, firingKey)` (the firing workflow's id, which carries the scheduled time) makes
 * a retried firing find its first result instead of making a second run.
 */
export const scheduleFirings = pgTable(
  'schedule_firings',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    scheduleId: uuid('schedule_id')
      .notNull()
      .references(() => schedules.id, { onDelete: 'cascade' }),
    firingKey: text('firing_key').notNull(),
    scheduledAt: timestampColumn('scheduled_at').notNull(),
    firedAt: timestampColumn('fired_at').notNull(),
    /** `started` (a session or run was made), `enqueued` (a pending turn), `skipped`, or `failed`. */
    outcome: text('outcome').$type<'started' | 'enqueued' | 'skipped' | 'failed'>().notNull(),
    sessionId: uuid('session_id'),
    runId: uuid('run_id'),
    /** `enqueued`: the pending turn; `runId` is filled in once it became a run. */
    pendingTurnId: uuid('pending_turn_id'),
    errorCode: text('error_code'),
    errorExplanation: text('error_explanation'),
  },
  (table) => [
    uniqueIndex('schedule_firings_key').on(table.scheduleId, table.firingKey),
    index('schedule_firings_schedule_idx').on(table.scheduleId, table.scheduledAt),
  ],
);
