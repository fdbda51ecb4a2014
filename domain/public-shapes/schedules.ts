import * as v from 'valibot';
import { MEMORY_ACCESS } from '../memory/attachments.ts';
import { SCHEDULE_IF_BUSY, SCHEDULE_OVERLAPS, SCHEDULE_TARGETS } from '../schedules/inputs.ts';
import { FIRING_OUTCOMES } from '../schedules/workflow.ts';
import { Id, page, Timestamp } from './common.ts';

/**
 * One firing of a schedule: its scheduled time, when it ran, and what it made. `runId` of an
 * `enqueued` firing appears once its pending turn became a run. `errorCode` and `errorMessage`
 * explain a `failed` one (`forbidden`: the schedule's acting principal no longer holds its scopes;
 * `rate_limited`: the project was at its unsettled-runs quota).
 */
export const ScheduleFiringShape = v.strictObject({
  id: Id,
  scheduledAt: Timestamp,
  firedAt: Timestamp,
  outcome: v.picklist(FIRING_OUTCOMES),
  sessionId: v.nullable(Id),
  runId: v.nullable(Id),
  pendingTurnId: v.nullable(Id),
  errorCode: v.nullable(v.string()),
  errorMessage: v.nullable(v.string()),
});

/**
 * A schedule (docs/decisions/schedules.md). `actingPrincipalId`: the principal its firings act
 * as, who last changed what it does (message, files, agent, target, memory stores; the creator
 * until then).
 * `memoryStores`: the stores each new session attaches (`target: new_session`; empty otherwise),
 * checked again at each firing: one deleted or archived since fails that firing.
 * `nextFirings`: the next times its Temporal Schedule will fire (empty while paused, and in the
 * answer of a change, whose body is made before the Temporal Schedule is updated);
 * `recentFirings`: the last firings, newest first.
 */
export const PublicScheduleShape = v.strictObject({
  id: Id,
  organizationId: Id,
  projectId: Id,
  name: v.nullable(v.string()),
  agentId: Id,
  agentVersionId: v.nullable(Id),
  cron: v.nullable(v.string()),
  intervalSeconds: v.nullable(v.pipe(v.number(), v.integer())),
  timeZone: v.string(),
  message: v.string(),
  files: v.array(v.strictObject({ uploadId: Id })),
  overlap: v.picklist(SCHEDULE_OVERLAPS),
  catchupWindowSeconds: v.pipe(v.number(), v.integer()),
  target: v.picklist(SCHEDULE_TARGETS),
  sessionId: v.nullable(Id),
  ifBusy: v.nullable(v.picklist(SCHEDULE_IF_BUSY)),
  memoryStores: v.array(v.strictObject({ storeId: Id, access: v.picklist(MEMORY_ACCESS), instructions: v.nullable(v.string()) })),
  paused: v.boolean(),
  createdByPrincipalId: Id,
  actingPrincipalId: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  nextFirings: v.array(Timestamp),
  recentFirings: v.array(ScheduleFiringShape),
});

export const SchedulePageShape = page(PublicScheduleShape);
export const ScheduleFiringPageShape = page(ScheduleFiringShape);

/** `DELETE /schedules/{id}`. */
export const ScheduleDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });

/** `POST /schedules/{id}/trigger`: Temporal took the firing; it shows in `recentFirings` once it ran. */
export const ScheduleTriggeredShape = v.strictObject({ id: Id, triggered: v.literal(true) });
