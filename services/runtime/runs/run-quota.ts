import type { SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { RateLimitedError } from '../../../domain/errors.ts';
import { RUN_STATES, isSettled } from '../../../domain/runs/states.ts';
import { projectRunsCount } from './count-project-runs.ts';

const UNSETTLED_STATES = RUN_STATES.filter((state) => !isSettled(state));

/** Seconds a caller refused by the quota is told to wait: runs settle on their own time. */
const QUOTA_RETRY_AFTER_SECONDS = 5;

/**
 * The project's unsettled runs (counted up to `limit`), for the new run's insert to return as
 * they were before it: the check costs no statement of its own.
 */
export function unsettledRunsBefore(db: Executor, projectId: string, limit: number): SQL<number> {
  return projectRunsCount(db, projectId, UNSETTLED_STATES, limit);
}

/**
 * Refuses a new run when the project already held `limit` unsettled runs (429 `rate_limited`,
 * `details.limit` `project_unsettled_runs`); thrown after the insert, it rolls the transaction
 * back. Concurrent creations may overshoot by the requests in flight: a quota, not a lock
 * (docs/decisions/unsettled-runs-quota.md).
 */
export function assertRunQuota(unsettledBefore: number, limit: number): void {
  if (unsettledBefore >= limit) {
    throw new RateLimitedError(
      `This project already has ${limit} unsettled runs, its limit; retry once some have settled`,
      { limit: 'project_unsettled_runs' },
      QUOTA_RETRY_AFTER_SECONDS,
    );
  }
}
