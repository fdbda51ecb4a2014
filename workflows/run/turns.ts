import { continueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { PrepareWorkspaceResult } from '../../activities/run-activity-types.ts';
import { turnLimitExplanation } from '../../domain/runs/model-retry.ts';
import type { RunContext, RunWorkflowInput } from './context.ts';
import type { ExecutionClock } from './execution-clock.ts';
import { modelTurn } from './model-turn.ts';
import { runOperation } from './operation.ts';
import { workspace } from './proxies.ts';
import type { Settlement } from './settlement.ts';

export type TurnPlan = {
  /** A first execution prepares the sandbox workspace; a run that continued as new did this already. */
  prepareWorkspace: boolean;
  /** 1, or where a run that continued as new picks up. */
  nextTurn: number;
  historyEventLimit: number;
  /** A final reply settles the run in the model call's step (no workspace to back up first). */
  settleOnReply: boolean;
};

/**
 * The run's work, run inside its `work` scope: the workspace (sandbox, restored backup, this
 * run's attachments) is ready before the first turn, then the turns until the run settles.
 */
export async function prepareAndDriveTurns(run: RunContext, clock: ExecutionClock, plan: TurnPlan): Promise<Settlement> {
  if (plan.prepareWorkspace) {
    const prepared = await prepareWorkspace(run);
    if (!prepared.ok)
      return { state: 'failed', failure: { errorCode: prepared.errorCode, errorExplanation: prepared.errorExplanation }, invocationFailed: false };
  }
  return driveTurns(run, clock, plan);
}

function prepareWorkspace(run: RunContext): Promise<PrepareWorkspaceResult> {
  return workspace.prepareRunWorkspace({ runId: run.runId }).catch((error: unknown) => {
    if (isCancellation(error)) throw error;
    return { ok: false as const, errorCode: 'workspace_unavailable', errorExplanation: 'The sandbox workspace could not be prepared for this run.' };
  });
}

/**
 * The turn loop: model turns (`turn-N`) until a final reply, the turn budget is spent, or a
 * turn fails for good. The execution clock starts with the first turn.
 */
async function driveTurns(run: RunContext, clock: ExecutionClock, plan: TurnPlan): Promise<Settlement> {
  const { runId } = run;
  const { historyEventLimit } = plan;
  clock.start();
  for (let turn = plan.nextTurn; ; turn++) {
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > historyEventLimit) {
      // Keep history bounded: start afresh at this turn; Postgres holds the transcript.
      await continueAsNew<(input: RunWorkflowInput) => Promise<unknown>>({
        runId,
        historyEventLimit,
        resume: { nextTurn: turn, executionRemainingMs: clock.remainingMs() },
      });
    }
    const ended = await modelTurn(run, `turn-${turn}`, (toolCallId) => runOperation(run, toolCallId), plan.settleOnReply);
    if (ended.kind === 'reply') return { state: 'completed', failure: null, invocationFailed: false, ...(ended.settled ? { recorded: ended.settled } : {}) };
    if (ended.kind === 'budget_exhausted') {
      return {
        state: 'failed',
        failure: { errorCode: 'model_turn_limit_exceeded', errorExplanation: turnLimitExplanation(ended.maxTurns) },
        invocationFailed: true,
      };
    }
    if (ended.kind === 'failed')
      return { state: 'failed', failure: { errorCode: ended.errorCode, errorExplanation: ended.errorExplanation }, invocationFailed: true };
  }
}
