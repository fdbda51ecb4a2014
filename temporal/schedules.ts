import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import type { Logger } from '../config/logger.ts';
import { RUN_SEARCH_ATTRIBUTES } from '../domain/runs/workflow.ts';
import {
  firingWorkflowIdPrefix,
  SCHEDULED_FIRING_WORKFLOW_TYPE,
  TEMPORAL_OVERLAP,
  temporalScheduleId,
  type ScheduledFiringInput,
  type ScheduleProjection,
} from '../domain/schedules/workflow.ts';

/** How long one call may wait for Temporal before the caller gives up (the reconciler tries again). */
export const SCHEDULE_CALL_DEADLINE_MS = 3_000;

/**
 * The Temporal side of the `ScheduleBackend` contract (services/kernel/schedule-backend.ts): one
 * Temporal Schedule per schedule, `schedule-<id>`, whose action starts `scheduledFiringWorkflow`
 * on the runtime's task queue with the workflow id `schedule-firing-<id>` (Temporal appends the
 * scheduled time). The row is the truth: `apply` writes the whole spec, policies and pause state
 * each time (create, or update when it exists), so it is idempotent.
 */
export function createTemporalScheduleBackend(options: { client: Client; taskQueue: string; logger: Logger }) {
  const { client, taskQueue, logger } = options;
  const bounded = <T>(fn: () => Promise<T>) => client.withDeadline(Date.now() + SCHEDULE_CALL_DEADLINE_MS, fn);

  const updateOf = (schedule: ScheduleProjection): ScheduleUpdateOptions => ({
    spec: specOf(schedule),
    action: {
      type: 'startWorkflow',
      workflowType: SCHEDULED_FIRING_WORKFLOW_TYPE,
      workflowId: firingWorkflowIdPrefix(schedule.scheduleId),
      taskQueue,
      args: [{ scheduleId: schedule.scheduleId } satisfies ScheduledFiringInput],
      typedSearchAttributes: [{ key: RUN_SEARCH_ATTRIBUTES.projectId, value: schedule.projectId }],
    } satisfies ScheduleOptionsAction,
    policies: { overlap: TEMPORAL_OVERLAP[schedule.overlap], catchupWindow: schedule.catchupWindowSeconds * 1000 },
    state: { paused: schedule.paused, note: `revision ${schedule.revision}` },
  });

  return {
    async apply(schedule: ScheduleProjection): Promise<void> {
      const options = updateOf(schedule);
      try {
        await bounded(() =>
          client.schedule.create({
            scheduleId: temporalScheduleId(schedule.scheduleId),
            ...options,
            typedSearchAttributes: [{ key: RUN_SEARCH_ATTRIBUTES.projectId, value: schedule.projectId }],
          }),
        );
        logger.debug('temporal schedule created', { scheduleId: schedule.scheduleId, revision: schedule.revision });
        return;
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      }
      await bounded(() => client.schedule.getHandle(temporalScheduleId(schedule.scheduleId)).update(() => options));
      logger.debug('temporal schedule updated', { scheduleId: schedule.scheduleId, revision: schedule.revision });
    },
    async remove(scheduleId: string): Promise<void> {
      try {
        await bounded(() => client.schedule.getHandle(temporalScheduleId(scheduleId)).delete());
      } catch (error) {
        if (error instanceof ScheduleNotFoundError) return;
        throw error;
      }
    },
    async trigger(scheduleId: string): Promise<'triggered' | 'missing'> {
      try {
        await bounded(() => client.schedule.getHandle(temporalScheduleId(scheduleId)).trigger(TEMPORAL_OVERLAP.allow_all));
        return 'triggered';
      } catch (error) {
        if (error instanceof ScheduleNotFoundError) return 'missing';
        throw error;
      }
    },
    async nextFirings(scheduleIds: readonly string[]): Promise<Map<string, Date[]>> {
      const described = await Promise.all(
        scheduleIds.map(async (scheduleId) => {
          try {
            const description = await bounded(() => client.schedule.getHandle(temporalScheduleId(scheduleId)).describe());
            return [scheduleId, description.info.nextActionTimes] as const;
          } catch (error) {
            if (!(error instanceof ScheduleNotFoundError)) logger.warn('could not describe a temporal schedule', { scheduleId, err: error });
            return null;
          }
        }),
      );
      return new Map(described.filter((entry) => entry !== null));
    },
  };
}

/** When it fires: the cron expression in the schedule's time zone, or every `intervalSeconds` (from the epoch). */
function specOf(schedule: ScheduleProjection): ScheduleSpec {
  if (schedule.cron !== null) return { cronExpressions: [schedule.cron], timezone: schedule.timeZone };
  return { intervals: [{ every: schedule.intervalSeconds! * 1000 }], timezone: schedule.timeZone };
}
