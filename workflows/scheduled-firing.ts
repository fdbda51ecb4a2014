import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { ScheduleActivities } from '../activities/schedules/firing.ts';
import { RUN_WALL_CEILING_MS } from '../domain/sessions/limits.ts';
import { TEMPORAL_SCHEDULED_START_TIME, type FiringResult, type ScheduledFiringInput } from '../domain/schedules/workflow.ts';

// The firing is a database step (a few short transactions; uploaded files are referenced, not
// transferred), so it runs as a local activity like the run's steps: a worker killed during it
// is replaced within the workflow task timeout and the step runs again, finding its record if it
// had committed. Only our own infrastructure failing (the database) makes it retry, for up to 15
// minutes; refusals are recorded results.
const firing = proxyLocalActivities<ScheduleActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '15 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// As long as a run may last, plus an hour; it heartbeats every second, so a dead worker is
// noticed within 10 s and the wait goes on elsewhere.
const settling = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: RUN_WALL_CEILING_MS + 60 * 60 * 1000,
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One firing of a schedule, started by its Temporal Schedule (never by us): the workflow id,
 * `schedule-firing-<scheduleId>-<scheduled time>`, is the firing's idempotency key. It makes the
 * firing's session or turn (one activity, recorded with it in one transaction), then waits until
 * that run settles, so that the schedule's overlap policy (skip, buffer one) sees the firing
 * running exactly as long as its run does.
 */
export async function scheduledFiringWorkflow(input: ScheduledFiringInput): Promise<FiringResult> {
  const info = workflowInfo();
  // Set by the Schedule on the workflows it starts; a manual start (debugging) uses its own start.
  const scheduledAt = info.typedSearchAttributes.get(TEMPORAL_SCHEDULED_START_TIME) ?? info.startTime;
  const result = await firing.fireSchedule({ scheduleId: input.scheduleId, firingKey: info.workflowId, scheduledAt: scheduledAt.toISOString() });
  if (result.kind === 'recorded' && result.awaits) await settling.awaitFiringSettled({ scheduleId: input.scheduleId, firingKey: info.workflowId });
  return result;
}
