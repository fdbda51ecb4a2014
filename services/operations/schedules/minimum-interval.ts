import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import type { ScheduleDeps } from '../../kernel/schedule-backend.ts';

/** What the verbs that set a schedule's timing need besides `ScheduleDeps`: this server's shortest interval. */
export type ScheduleWriteDeps = ScheduleDeps & {
  /** SVC_SCHEDULE_MIN_INTERVAL_SECONDS (docs/decisions/schedule-minimum-interval.md). */
  minIntervalSeconds: number;
};

/**
 * Refuses an interval shorter than this server's minimum (a 400 naming the limit and the
 * setting): a schedule firing every second made a session a second. A cron expression fires at
 * most once a minute, which the setting (at most 60) never exceeds. Checked on the schedule as
 * it will be (create, the merged PATCH) and when it is unpaused, so a restored schedule or one
 * written before the minimum existed cannot resume at a shorter interval.
 */
export function assertMinimumInterval(intervalSeconds: number | null, minimum: number): void {
  if (intervalSeconds === null || intervalSeconds >= minimum) return;
  throw new ValidationError(
    `Invalid body: intervalSeconds: must be at least ${minimum} (this server's shortest schedule interval, SVC_SCHEDULE_MIN_INTERVAL_SECONDS)`,
    {
      path: 'body.intervalSeconds',
      limit: 'schedule_min_interval_seconds',
      minimum,
    },
  );
}

/** Refuses to unpause a schedule whose stored interval is below the minimum (409: change its interval first). */
export function assertMayResume(intervalSeconds: number | null, minimum: number): void {
  if (intervalSeconds === null || intervalSeconds >= minimum) return;
  throw new ConflictError(
    `This schedule fires every ${intervalSeconds} s, below this server's shortest schedule interval (${minimum} s, SVC_SCHEDULE_MIN_INTERVAL_SECONDS); give it a longer intervalSeconds first`,
    {
      limit: 'schedule_min_interval_seconds',
      minimum,
    },
  );
}
