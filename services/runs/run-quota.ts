import { RateLimitedError } from '../../domain/errors.ts';
import { RUN_STATES, isSettled } from '../../domain/runs/states.ts';
import type { ServiceContext } from '../service-context.ts';
import { countProjectRuns } from './count-project-runs.ts';

const UNSETTLED_STATES = RUN_STATES.filter((state) => !isSettled(state));

/** Seconds a caller refused by the quota is told to wait: runs settle on their own time. */
const QUOTA_RETRY_AFTER_SECONDS = 5;

/**
 * Refuses a new run when the project already holds `limit` unsettled runs (429 `rate_limited`,
 * `details.limit` `project_unsettled_runs`). Concurrent creations may overshoot by the requests
 * in flight: a quota, not a lock (docs/decisions.md "Rate limits and quotas").
 */
export async function assertRunQuota(tx: ServiceContext, projectId: string, limit: number): Promise<void> {
  if ((await countProjectRuns(tx.db, projectId, UNSETTLED_STATES, limit)) >= limit) {
    throw new RateLimitedError(`This project already has ${limit} unsettled runs, its limit; retry once some have settled`, { limit: 'project_unsettled_runs' }, QUOTA_RETRY_AFTER_SECONDS);
  }
}
