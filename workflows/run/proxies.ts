import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RunActivities } from '../../activities/run-activity-types.ts';
import { MODEL_ATTEMPT_DEADLINE_MS } from '../../domain/runs/model-retry.ts';

// Database steps: short and idempotent, so they run as local activities inside the workflow
// task (no extra task round trip per step). A transient failure (the database unreachable) is
// retried with back-off for up to 15 minutes; a permanent one (a domain error: the run is gone,
// a refused transition) is not retried at all (docs/decisions/failure-classification.md).
export const store = proxyLocalActivities<RunActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '15 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// Platform tools and model calls: long calls with their own deadlines inside. Both heartbeat
// every second (their work awaits I/O or runs in other processes, so the event loop is free),
// so a worker killed mid-call is noticed within 5 s, cancellation reaches the call, and the
// attempt starts over (a model call streaming again from the start) on a live worker a quarter
// second later: a provider's failures are answers the workflow retries itself, so what reaches
// this retry is a dead or broken worker.
const heartbeating = {
  startToCloseTimeout: MODEL_ATTEMPT_DEADLINE_MS + 60_000,
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '250 milliseconds', maximumInterval: '30 seconds', maximumAttempts: 10 },
} as const;
export const calls = proxyActivities<RunActivities>(heartbeating);
export const models = proxyActivities<RunActivities>(heartbeating);

// Workspace preparation and backup: object-storage transfers of up to a few hundred MB. A store
// that stays down fails the preparation (the run fails) or skips the backup, rather than
// holding the run for long.
export const workspace = proxyActivities<RunActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});
