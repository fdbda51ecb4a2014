import { CancellationScope, isCancellation, log } from '@temporalio/workflow';
import type { RunFailure } from '../../activities/run-activity-types.ts';
import { RUNTIME_FAILURE } from '../../domain/runs/runtime-failures.ts';
import type { RunState, SettledRunState } from '../../domain/runs/states.ts';
import { markState, type RunContext } from './context.ts';
import { failureType, isRunGone, isStepFailure, RUN_GONE_RESULT, runGone } from './failures.ts';
import { store, workspace } from './proxies.ts';

/**
 * How the run settles: what `settleRun` records. `recorded`: the run is settled already, in this
 * state (a final reply's model call settled it: `settleOnReply`).
 */
export type Settlement = { state: SettledRunState; failure: RunFailure | null; invocationFailed: boolean; recorded?: RunState };

export function cancelledSettlement(): Settlement {
  return { state: 'cancelled', failure: { errorCode: 'cancelled', errorExplanation: 'The run was cancelled on request.' }, invocationFailed: false };
}

function timedOutSettlement(timeoutMs: number): Settlement {
  return {
    state: 'timed_out',
    failure: { errorCode: 'run_timed_out', errorExplanation: `The run exceeded its execution time limit of ${timeoutMs} ms.` },
    invocationFailed: false,
  };
}

/**
 * How a run settles when its work threw: cancelled (on request) or timed out (a deadline
 * cancelled the work), or failed when a step failed for good. Anything else is rethrown.
 */
export function interruptedSettlement(run: RunContext, error: unknown, timeoutMs: number): Settlement {
  if (isCancellation(error)) return run.timedOut && !run.cancelled ? timedOutSettlement(timeoutMs) : cancelledSettlement();
  if (isStepFailure(error)) {
    // A step failed for good (a permanent failure, or its bounded retries are spent): the run
    // fails visibly instead of the workflow retrying or hanging.
    log.warn('a run step failed for good; settling the run as failed', { runId: run.runId, failure: failureType(error) });
    return { state: 'failed', failure: { ...RUNTIME_FAILURE }, invocationFailed: false };
  }
  throw error;
}

/**
 * Settles the run exactly once, outside its (maybe cancelled) work scope. Returns the state
 * recorded, or `RUN_GONE_RESULT` when the run no longer exists.
 */
export async function settle(run: RunContext, settlement: Settlement, sandboxEnabled: boolean): Promise<RunState | typeof RUN_GONE_RESULT> {
  const { runId } = run;
  if (settlement.recorded) {
    markState(settlement.recorded);
    return settlement.recorded;
  }
  // Back the workspace up before settling, so a settled run's files are listable at once. A
  // backup that cannot be made never changes how the run settles (the previous generation stays).
  if (sandboxEnabled) await CancellationScope.nonCancellable(() => workspace.backupWorkspace({ runId })).catch(() => undefined);
  let state: RunState;
  try {
    state = await CancellationScope.nonCancellable(() => store.settleRun({ runId, ...settlement }));
  } catch (error) {
    if (isRunGone(error)) return runGone(runId);
    throw error;
  }
  markState(state);
  return state;
}
