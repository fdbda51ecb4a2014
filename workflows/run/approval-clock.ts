import { getExternalWorkflowHandle, sleep, workflowInfo } from '@temporalio/workflow';
import type { RunContext } from './context.ts';
import { type ExecutionClock, executionClock } from './execution-clock.ts';
import { descendantApprovalWait } from './signals.ts';

/*
 * The run's two deadlines. Either one, when it passes, times the run out by cancelling its work.
 * The 48-hour ceiling never pauses. The execution-time limit pauses while an approval is awaited:
 * approval waits pause the execution deadline of the waiting run and of every delegation
 * ancestor (concurrent waits count once).
 */

/**
 * Starts the 48-hour ceiling (a timer that never pauses) and creates the execution clock with
 * what is left of the limit; the turn loop starts the clock (turns.ts). From here on, approval
 * waits reach the clock.
 */
export function startDeadlines(run: RunContext, wallDeadlineAtMs: number, executionLimitMs: number): ExecutionClock {
  const expire = () => {
    run.timedOut = true;
    run.work.cancel();
  };
  // The 48-hour ceiling never pauses; the execution limit pauses during approval waits.
  void sleep(Math.max(0, wallDeadlineAtMs - Date.now())).then(expire);
  const clock = executionClock(executionLimitMs, expire);
  run.approvalWaits.clock = clock;
  return clock;
}

/** This run enters (`waiting_for_approval`) or leaves an approval wait. */
export function setOwnApprovalWait(run: RunContext, waiting: boolean) {
  run.approvalWaits.own = waiting;
  syncClock(run);
}

/** The `descendantApprovalWait` signal: a delegated run below this one started or stopped waiting. */
export function setDescendantApprovalWait(run: RunContext, descendant: string, waiting: boolean) {
  if (waiting) run.approvalWaits.descendants.add(descendant);
  else run.approvalWaits.descendants.delete(descendant);
  syncClock(run);
}

/** Pauses or runs the execution clock as the waits say. Before admission (no clock yet) it does nothing. */
function syncClock(run: RunContext) {
  const waits = run.approvalWaits;
  if (!waits.clock) return;
  const paused = waits.own || waits.descendants.size > 0;
  if (paused) waits.clock.pause();
  else waits.clock.start();
  // A delegated run tells its coordinator, which passes it on to its own.
  const parent = workflowInfo().parent;
  if (parent && paused !== waits.reported) {
    waits.reported = paused;
    void getExternalWorkflowHandle(parent.workflowId)
      .signal(descendantApprovalWait, { runId: run.runId, waiting: paused })
      .catch(() => {});
  }
}
