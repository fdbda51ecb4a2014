import { condition } from '@temporalio/workflow';
import { setOwnApprovalWait } from './approval-clock.ts';
import { markState, type RunContext } from './context.ts';
import { runDelegation } from './delegation.ts';
import { runDelegationsTogether, type DelegationCall } from './parallel-delegations.ts';
import { decidedByResult } from './patches.ts';
import type { ToolProgress, ToolProgressStep } from '../../activities/run-activity-types.ts';
import { calls, store } from './proxies.ts';

/**
 * Runs a Harness Operation call as a sub-loop of this run (operation.ts). Passed down from the
 * turn loop rather than imported, so that the operation's own turns (which settle tool calls
 * too) get none: inside a sub-loop, operations do not nest.
 */
export type OperationRunner = (toolCallId: string) => Promise<void>;

/**
 * Runs a turn's tool calls to completion and appends their results to the transcript: platform
 * tools run as activities, delegations as child runs, Harness Operations as sub-loops; caller
 * tools and approvals are awaited by signal (and their deadlines), never by polling.
 */
export async function settleToolCalls(run: RunContext, turnId: string, runOperation: OperationRunner | null) {
  const { runId } = run;
  // Cleared before each read of Postgres, so a signal that arrives during the read still wakes
  // the wait that follows it. Steps that write then read the progress (recording the calls,
  // finishing a delegation) save the workflow a step of its own for the read; histories recorded
  // before that change have no progress in those results, and read it in a step as they did.
  run.woken = false;
  const recorded = await store.recordTurnToolCalls({ runId, turnId });
  const folded = decidedByResult(recorded?.progress !== undefined);
  let progress: ToolProgress | undefined = folded ? recorded?.progress : undefined;
  // A delegation the recording step queued already (its first call to run), and whether a
  // delegation's finish did the last step below (the same change; absent in older histories).
  let queued = folded ? recorded?.delegation : undefined;
  // Since issue 49: every delegation of the turn queued by that step, to run together.
  let batch = folded ? recorded?.delegations : undefined;
  let resumed = false;
  for (;;) {
    if (!progress) {
      run.woken = false;
      progress = await store.readToolProgress({ runId, turnId });
    }
    const delegating = progress.platformCalls.filter((call) => call.delegation);
    // Progress that names each delegation's key was read by code that runs them together; older
    // histories ran them one after another below.
    if (delegating.length > 0 && delegating.every((call) => call.delegateKey !== undefined)) {
      const together = delegating.map((call): DelegationCall => ({
        toolCallId: call.toolCallId,
        delegateKey: call.delegateKey!,
        maxParallel: call.maxParallel ?? 1,
      }));
      const others = progress.platformCalls.filter((call) => !call.delegation);
      const known = batch;
      batch = undefined;
      const [, last] = await Promise.all([runPlatformCalls(run, others, runOperation), runDelegationsTogether(run, turnId, together, known)]);
      resumed = last?.resumed === true;
      // Only the finish that resumed the run read the turn's progress last (finishes overlap).
      progress = resumed ? last!.progress : undefined;
      continue;
    }
    if (progress.platformCalls.length > 0) {
      let next: ToolProgressStep | undefined;
      for (const call of progress.platformCalls) {
        next = undefined;
        if (call.delegation) {
          run.woken = false;
          const start = queued?.toolCallId === call.toolCallId ? queued.start : undefined;
          queued = undefined;
          next = await runDelegation(run, call.toolCallId, turnId, start);
        } else await runPlatformCalls(run, [call], runOperation);
      }
      // Read after the last call only (a delegation's finish reads it): earlier reads are stale.
      progress = next?.progress;
      resumed = next?.resumed === true;
      continue;
    }
    if (progress.allFinal) break;
    const state = progress.waitingFor === 'approval' ? 'waiting_for_approval' : 'waiting_for_tool';
    const entry = await store.enterWaitingState({ runId, state });
    // Answered (or decided) since the read: nothing blocks, so the run reads again and goes on.
    // Histories from before that change have no entry, and waited as they did.
    if (decidedByResult(entry !== undefined) && entry?.waiting === false) {
      progress = undefined;
      continue;
    }
    markState(state);
    setOwnApprovalWait(run, state === 'waiting_for_approval');
    await waitForWake(run, progress.nextDeadlineAtMs);
    progress = undefined;
  }
  setOwnApprovalWait(run, false);
  if (!resumed) {
    const appended = await store.appendToolResults({ runId, turnId });
    if (!appended?.resumed) await store.resumeRun({ runId });
  }
  markState('running');
}

/** Platform tools as activities and Harness Operations as sub-loops, one after another. */
async function runPlatformCalls(run: RunContext, platformCalls: ToolProgress['platformCalls'], runOperation: OperationRunner | null) {
  const { runId } = run;
  for (const call of platformCalls) {
    if (!call.operation) await calls.executePlatformTool({ runId, toolCallId: call.toolCallId });
    else if (!runOperation)
      await store.finishHarnessOperation({
        runId,
        toolCallId: call.toolCallId,
        operationKey: call.toolName,
        end: { kind: 'nested' },
        turns: 0,
        durationMs: 0,
      });
    else await runOperation(call.toolCallId);
  }
}

/** Until a result or decision arrives (a hint), or a lease or approval deadline passes. */
async function waitForWake(run: RunContext, deadlineAtMs: number | null) {
  if (deadlineAtMs === null) await condition(() => run.woken);
  else await condition(() => run.woken, Math.max(0, deadlineAtMs - Date.now()) + 100);
}
