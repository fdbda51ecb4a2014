import {
  CancellationScope,
  ChildWorkflowCancellationType,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { RUN_SEARCH_ATTRIBUTES, RUN_WORKFLOW_TYPE, runWorkflowId } from '../../domain/runs/workflow.ts';
import type { DelegationStart, ToolProgressStep } from '../../activities/run-activity-types.ts';
import type { RunContext } from './context.ts';
import { failureType } from './failures.ts';
import { store } from './proxies.ts';
import { cancelRequested } from './signals.ts';

/**
 * A `delegate_agent`/`message_agent` call, one at a time (histories recorded before issue 49; a
 * turn's delegations now run together, parallel-delegations.ts): the child run (its own session,
 * run and budget) runs as a Temporal child workflow of this one, so cancelling this run cancels
 * it; its answer, or how it ended, becomes the call's result
 * (docs/decisions/delegated-child-runs.md).
 */
export async function runDelegation(
  run: RunContext,
  toolCallId: string,
  turnId: string,
  queued: DelegationStart | undefined,
): Promise<ToolProgressStep | undefined> {
  const { runId } = run;
  // Queued already by the step that recorded the turn's calls (issue 33), else queued here.
  const start = queued ?? (await store.startDelegation({ runId, toolCallId }));
  if (start.kind === 'started') await awaitChildRun(runId, start);
  // The finish reads the turn's progress too, and resumes the run when the turn is done
  // (undefined in histories recorded before issue 33).
  return store.finishDelegation({ runId, toolCallId, start, turnId });
}

/**
 * Starts a queued child run as a child workflow and waits for its end. Cancellation travels as
 * the run's own signal (it settles the child `cancelled` like an API cancel), not as a Temporal
 * cancellation of the child.
 */
export async function awaitChildRun(runId: string, start: Extract<DelegationStart, { kind: 'started' }>, onStarted?: () => void): Promise<void> {
  const child = await startChild(RUN_WORKFLOW_TYPE, {
    workflowId: runWorkflowId(start.childRunId),
    args: [{ runId: start.childRunId }],
    taskQueue: workflowInfo().taskQueue,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    cancellationType: ChildWorkflowCancellationType.ABANDON,
    typedSearchAttributes: [
      { key: RUN_SEARCH_ATTRIBUTES.projectId, value: start.projectId },
      { key: RUN_SEARCH_ATTRIBUTES.sessionId, value: start.childSessionId },
      { key: RUN_SEARCH_ATTRIBUTES.agentId, value: start.agentId },
      { key: RUN_SEARCH_ATTRIBUTES.runState, value: 'queued' },
    ],
  });
  onStarted?.();
  try {
    await child.result();
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(runWorkflowId(start.childRunId)).signal(cancelRequested));
      throw error;
    }
    // The child's own end is read from Postgres by the finish.
    log.warn('a delegated run did not end cleanly', { runId, childRunId: start.childRunId, failure: failureType(error) });
  }
}
