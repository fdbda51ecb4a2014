import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { ScheduleOverlap } from './inputs.ts';

/**
 * Names shared by the Temporal Schedule of a schedule, its firing workflow and those who create,
 * trigger and describe it. They are wire format (Temporal holds them): never rename a deployed one.
 */

/** The Temporal Schedule of a schedule row (what `temporal schedule list` shows). */
export const temporalScheduleId = (scheduleId: string) => `schedule-${scheduleId}`;
/**
 * The workflow id each firing starts with; Temporal appends `-<scheduled time>` (RFC 3339, to the
 * second), so the id of a firing names its scheduled time and is the firing's idempotency key.
 */
export const firingWorkflowIdPrefix = (scheduleId: string) => `schedule-firing-${scheduleId}`;
export const SCHEDULED_FIRING_WORKFLOW_TYPE = 'scheduledFiringWorkflow';

/** What the Temporal Schedule's action passes to each firing: the row is read at firing time. */
export type ScheduledFiringInput = { scheduleId: string };

/** The overlap policy of the Temporal Schedule for each of ours (the values `ScheduleOverlapPolicy` takes). */
export const TEMPORAL_OVERLAP = { skip: 'SKIP', buffer_one: 'BUFFER_ONE', allow_all: 'ALLOW_ALL' } as const satisfies Record<ScheduleOverlap, string>;

/** Set by Temporal on every workflow a Schedule starts: the firing's scheduled (nominal) time. */
export const TEMPORAL_SCHEDULED_START_TIME = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/**
 * What Temporal needs of a schedule row: its timing, policies and pause state. `deleted`: the
 * Temporal Schedule must not exist. `revision` is the row's, for the projection's bookkeeping.
 */
export type ScheduleProjection = {
  scheduleId: string;
  projectId: string;
  revision: number;
  cron: string | null;
  intervalSeconds: number | null;
  timeZone: string;
  overlap: ScheduleOverlap;
  catchupWindowSeconds: number;
  paused: boolean;
};

/** What a firing did: `started` a session or run, `enqueued` a pending turn, `skipped` (busy session), or `failed`. */
export const FIRING_OUTCOMES = ['started', 'enqueued', 'skipped', 'failed'] as const;
export type FiringOutcome = (typeof FIRING_OUTCOMES)[number];

/**
 * What the firing activity answers the workflow: the firing's record, or `gone` when the
 * schedule (or its project) no longer exists and nothing was recorded. `awaits` says whether the
 * workflow waits for what the firing made (a run or pending turn) to settle, so that `overlap`
 * counts a firing as running until then.
 */
export type FiringResult = { kind: 'recorded'; outcome: FiringOutcome; sessionId: string | null; runId: string | null; awaits: boolean } | { kind: 'gone' };
