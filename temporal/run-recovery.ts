import type { Client } from '@temporalio/client';
import type { Logger } from '../config/logger.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';

/** How long the release may take before the retried step goes on without it. */
const RELEASE_DEADLINE_MS = 1_000;

/**
 * What a retried step of a run does first (activities/run-activities.ts): its workflow's next task
 * would wait on the sticky queue of the worker that last ran it, which may be dead (SIGKILL), for
 * the sticky timeout before any worker gets it. `ResetStickyTaskQueue` sends it to the task queue
 * at once; a live worker that still caches the workflow only replays it once. Best effort: a
 * failure is logged, and the sticky timeout still bounds the wait.
 */
export function createTemporalRunRecovery(options: { client: Client; logger: Logger }) {
  const { client, logger } = options;
  return {
    async releaseStickiness(runId: string): Promise<void> {
      try {
        await client.withDeadline(Date.now() + RELEASE_DEADLINE_MS, () =>
          client.workflowService.resetStickyTaskQueue({ namespace: client.options.namespace, execution: { workflowId: runWorkflowId(runId) } }),
        );
      } catch (error) {
        logger.warn('could not release a recovering run from its last worker', { runId, errorName: (error as Error).name });
      }
    },
  };
}
