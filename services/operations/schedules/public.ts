import type * as v from 'valibot';
import type { scheduleFirings, schedules } from '../../../db/schema/index.ts';
import type { PublicScheduleShape, ScheduleFiringShape } from '../../../domain/public-shapes/schedules.ts';
import type { ScheduleProjection } from '../../../domain/schedules/workflow.ts';

export type ScheduleRow = typeof schedules.$inferSelect;
export type ScheduleFiringRow = typeof scheduleFirings.$inferSelect;
export type PublicSchedule = v.InferOutput<typeof PublicScheduleShape>;
export type PublicScheduleFiring = v.InferOutput<typeof ScheduleFiringShape>;

/** How many of a schedule's next and last firings its public shape shows. */
export const NEXT_FIRINGS_SHOWN = 5;
export const RECENT_FIRINGS_SHOWN = 5;

export const toScheduleFiringResponse = (row: ScheduleFiringRow): PublicScheduleFiring => ({
  id: row.id,
  scheduledAt: row.scheduledAt.toISOString(),
  firedAt: row.firedAt.toISOString(),
  outcome: row.outcome,
  sessionId: row.sessionId,
  runId: row.runId,
  pendingTurnId: row.pendingTurnId,
  errorCode: row.errorCode,
  errorMessage: row.errorExplanation,
});

export function toScheduleResponse(row: ScheduleRow, details: { nextFirings: readonly Date[]; recentFirings: readonly ScheduleFiringRow[] }): PublicSchedule {
  return {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    name: row.name,
    agentId: row.agentId,
    agentVersionId: row.agentVersionId,
    cron: row.cron,
    intervalSeconds: row.intervalSeconds,
    timeZone: row.timeZone,
    message: row.message,
    files: row.files.map((file) => ({ uploadId: String(file.uploadId) })),
    overlap: row.overlap,
    catchupWindowSeconds: row.catchupWindowSeconds,
    target: row.target,
    sessionId: row.sessionId,
    ifBusy: row.ifBusy,
    memoryStores: row.memoryStores.map((store) => ({ storeId: store.storeId, access: store.access, instructions: store.instructions })),
    paused: row.paused,
    createdByPrincipalId: row.createdByPrincipalId,
    actingPrincipalId: row.actingPrincipalId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    // A paused Temporal Schedule still computes its next times; none of them will fire.
    nextFirings: row.paused ? [] : details.nextFirings.slice(0, NEXT_FIRINGS_SHOWN).map((at) => at.toISOString()),
    recentFirings: details.recentFirings.map(toScheduleFiringResponse),
  };
}

/** What the Temporal Schedule of a row must be (services/kernel/schedule-backend.ts). */
export const projectionOf = (row: ScheduleRow): ScheduleProjection => ({
  scheduleId: row.id,
  projectId: row.projectId,
  revision: row.revision,
  cron: row.cron,
  intervalSeconds: row.intervalSeconds,
  timeZone: row.timeZone,
  overlap: row.overlap,
  catchupWindowSeconds: row.catchupWindowSeconds,
  paused: row.paused,
});
