import { Context } from '@temporalio/activity';
import type { FiringResult } from '../../domain/schedules/workflow.ts';
import type { RunStarterDeps } from '../../services/kernel/run-starter.ts';
import type { ScheduleBackend } from '../../services/kernel/schedule-backend.ts';
import { fireSchedule } from '../../services/operations/schedules/index.ts';
import { firingSettled } from '../../services/operations/schedules/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';

/** How often the wait for a firing's run looks at it (and heartbeats). */
export const FIRING_POLL_MS = 1_000;

export type ScheduleActivities = {
  /**
   * One firing: makes its session or turn as the schedule's creator, or finds it already made
   * (keyed by the firing workflow's id). A firing of a schedule that no longer exists removes its
   * Temporal Schedule and answers `gone`.
   */
  fireSchedule(input: { scheduleId: string; firingKey: string; scheduledAt: string }): Promise<FiringResult>;
  /** Returns once what the firing made has settled, looking every second and heartbeating. */
  awaitFiringSettled(input: { scheduleId: string; firingKey: string }): Promise<void>;
};

export type ScheduleActivityDeps = {
  system: () => ServiceContext;
  runs: RunStarterDeps;
  /** Removes the Temporal Schedule of a schedule that is gone (null: left to the reconciler, or to nobody for a deleted project). */
  scheduleBackend: ScheduleBackend | null;
};

export function createScheduleActivities(deps: ScheduleActivityDeps): ScheduleActivities {
  return {
    async fireSchedule(input) {
      const result = await fireSchedule({
        ctx: deps.system(),
        deps: deps.runs,
        input: { scheduleId: input.scheduleId, firingKey: input.firingKey, scheduledAt: new Date(input.scheduledAt) },
      });
      // Its row deleted, or its project with it: this Temporal Schedule is an orphan.
      if (result.kind === 'gone') await deps.scheduleBackend?.remove(input.scheduleId);
      return result;
    },
    async awaitFiringSettled(input) {
      const activity = Context.current();
      for (;;) {
        activity.heartbeat();
        if (await firingSettled({ ctx: deps.system(), input })) return;
        // Cancellation-aware: a cancelled firing workflow stops the wait at once.
        await activity.sleep(FIRING_POLL_MS);
      }
    },
  };
}
