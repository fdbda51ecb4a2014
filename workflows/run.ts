import { setHandler } from '@temporalio/workflow';
import type { RunState } from '../domain/runs/states.ts';
import { admit } from './run/admission.ts';
import { setDescendantApprovalWait, startDeadlines } from './run/approval-clock.ts';
import { markState, newRunContext, type RunWorkflowInput } from './run/context.ts';
import { decidedByResult } from './run/patches.ts';
import { RUN_GONE_RESULT } from './run/failures.ts';
import { cancelledSettlement, interruptedSettlement, type Settlement, settle } from './run/settlement.ts';
import { approvalDecided, cancelRequested, capacityFreed, descendantApprovalWait, toolResultSubmitted } from './run/signals.ts';
import { prepareAndDriveTurns } from './run/turns.ts';

export { approvalDecided, cancelRequested, capacityFreed, descendantApprovalWait, toolResultSubmitted } from './run/signals.ts';
export { ADMISSION_RECHECK_MS } from './run/admission.ts';
export { RUN_GONE_RESULT } from './run/failures.ts';
export type { RunWorkflowInput } from './run/context.ts';

/** History length past which a run continues as new at its next turn (Temporal may suggest sooner). */
export const DEFAULT_HISTORY_EVENT_LIMIT = 10_000;

/**
 * One workflow per run (`run:<runId>`), driving the state machine of spec 1: admit, then model
 * turns until a final reply. Each turn reserves the durable turn budget; transient provider
 * failures are retried (`retry_scheduled`); tool calls are recorded and executed (platform) or
 * awaited (caller tools, approvals) by signal, never by polling; the run settles exactly once.
 * Postgres is what the API reads: every transition is written by an activity in the same
 * transaction as its product events.
 *
 * The steps live in ./run/ (workflows/README.md): admission, the deadlines and the approval
 * clock, the turn loop, tool calls, Harness Operations, delegation, settlement. They share one
 * `RunContext`, created here; the signal handlers below are its only other writers.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunState | typeof RUN_GONE_RESULT> {
  const historyEventLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  const run = newRunContext(input.runId);
  setHandler(cancelRequested, () => {
    run.cancelled = true;
    run.work.cancel();
  });
  // Hints only: after waking, the workflow re-reads Postgres.
  setHandler(toolResultSubmitted, () => void (run.woken = true));
  setHandler(approvalDecided, () => void (run.woken = true));
  // Approval waits pause the execution deadline of the waiting run and of every delegation
  // ancestor (concurrent waits count once); the 48-hour ceiling never pauses.
  setHandler(descendantApprovalWait, ({ runId: descendant, waiting }) => setDescendantApprovalWait(run, descendant, waiting));
  // The project's running-runs limit may make the run wait `queued`; a run that stops executing
  // wakes it (a hint: it re-checks every minute regardless), and so does cancellation.
  setHandler(capacityFreed, () => void (run.placeFreed = true));

  const admission = await admit(run);
  if (admission === RUN_GONE_RESULT) return admission;
  if (admission.kind === 'settled') {
    markState(admission.state);
    return admission.state;
  }
  markState('running');
  if (admission.cancellationRequested) run.cancelled = true;
  const clock = startDeadlines(run, admission.wallDeadlineAtMs, input.resume?.executionRemainingMs ?? admission.timeoutMs);

  let settlement: Settlement;
  if (run.cancelled) {
    settlement = cancelledSettlement();
  } else {
    try {
      // A run without a workspace to back up settles in its final reply's model call (one step
      // and one transaction fewer). Admission says so in its recorded result, which admissions
      // from before that change lack: those runs replay as they ran (run/patches.ts).
      const settleOnReply = decidedByResult(admission.settlesOnReply !== undefined) && admission.settlesOnReply === true;
      const plan = { prepareWorkspace: !input.resume && admission.sandboxEnabled, nextTurn: input.resume?.nextTurn ?? 1, historyEventLimit, settleOnReply };
      settlement = await run.work.run(() => prepareAndDriveTurns(run, clock, plan));
    } catch (error) {
      settlement = interruptedSettlement(run, error, admission.timeoutMs);
    }
  }
  return settle(run, settlement, admission.sandboxEnabled);
}
