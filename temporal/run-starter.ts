import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Logger } from '../config/logger.ts';
import { RUN_SEARCH_ATTRIBUTES as keys, RUN_SIGNALS, RUN_WORKFLOW_TYPE, runWorkflowId, type RunWakeSignal } from '../domain/runs/workflow.ts';

/** How long a start may wait for Temporal before it is left to the reconciler. */
export const START_DEADLINE_MS = 3_000;

/**
 * The Temporal side of the `RunStarter` contract (services/kernel/run-starter.ts): starts
 * `run:<runId>` with its search attributes; a workflow that already exists is left alone, so
 * the API's after-commit start and the worker's reconciler can both call it. `eagerStart` is for
 * a client on the in-process worker's own connection.
 */
export function createTemporalRunStarter(options: { client: Client; taskQueue: string; logger: Logger; eagerStart?: boolean }) {
  const { client, taskQueue, logger } = options;
  return {
    async start(run: { runId: string; projectId: string; sessionId: string; agentId: string }): Promise<void> {
      try {
        // Bounded: with Temporal unreachable the API answers anyway (the run is committed) and the
        // worker's reconciler starts the run once Temporal is back.
        await withinDeadline(client, START_DEADLINE_MS, () =>
          client.workflow.start(RUN_WORKFLOW_TYPE, {
            workflowId: runWorkflowId(run.runId),
            taskQueue,
            args: [{ runId: run.runId }],
            workflowIdConflictPolicy: 'USE_EXISTING',
            // With a worker in this process on the same connection, the first workflow task comes
            // back in the start response instead of through a poll (docs/decisions/eager-workflow-start.md).
            requestEagerStart: options.eagerStart ?? false,
            typedSearchAttributes: [
              { key: keys.projectId, value: run.projectId },
              { key: keys.sessionId, value: run.sessionId },
              { key: keys.agentId, value: run.agentId },
              { key: keys.runState, value: 'queued' },
            ],
          }),
        );
      } catch (error) {
        // A closed workflow with this id means the run already went through the runtime.
        if (error instanceof WorkflowExecutionAlreadyStartedError) return;
        throw error;
      }
      logger.debug('run workflow started', { runId: run.runId });
    },
    async notify(runId: string, signal: RunWakeSignal): Promise<void> {
      try {
        await client.workflow.getHandle(runWorkflowId(runId)).signal(signal);
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return;
        throw error;
      }
    },
    async requestCancellation(runId: string): Promise<void> {
      try {
        await client.workflow.getHandle(runWorkflowId(runId)).signal(RUN_SIGNALS.cancelRequested);
      } catch (error) {
        // Not started yet (the workflow reads the request at admission) or already closed.
        if (error instanceof WorkflowNotFoundError) return;
        throw error;
      }
    },
  };
}

/**
 * `fn` with a deadline `ms` from now, answered by then whatever the connection does. The client's
 * own connection stops at the deadline (temporal/bounded-retries.ts); the worker's native
 * connection (an eager start under `npm start`) retries in its core past the deadline and honours
 * no abort signal (SDK 1.24), so its call is left to end on its own, its failure observed.
 */
async function withinDeadline<T>(client: Client, ms: number, fn: () => Promise<T>): Promise<T> {
  const call = client.withDeadline(Date.now() + ms, fn);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Temporal did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
    call.catch(() => {});
  }
}
