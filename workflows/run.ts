import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { CancellationScope, defineSignal, isCancellation, proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { RunActivities, RunFailure } from '../activities/run-activity-types.ts';
import { modelRetryDelayMs, shouldRetryModel, turnLimitExplanation, MODEL_ATTEMPT_DEADLINE_MS } from '../domain/runs/model-retry.ts';
import { CANCEL_REQUESTED_SIGNAL, RUN_SEARCH_ATTRIBUTES } from '../domain/runs/search-attributes.ts';
import type { RunState, SettledRunState } from '../domain/runs/states.ts';

export const cancelRequested = defineSignal(CANCEL_REQUESTED_SIGNAL);

const runStateKey = defineSearchAttributeKey(RUN_SEARCH_ATTRIBUTES.runState, SearchAttributeType.KEYWORD);

// Database steps: short, retried until the database answers (they are idempotent).
const store = proxyActivities<RunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// Model turns: the provider call has its own five-minute deadline inside the activity; the
// activity heartbeats so a dead worker is noticed in seconds and cancellation reaches the call.
const model = proxyActivities<RunActivities>({
  startToCloseTimeout: MODEL_ATTEMPT_DEADLINE_MS + 60_000,
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

type Settlement = { state: SettledRunState; failure: RunFailure | null; invocationFailed: boolean };

/**
 * One workflow per run (`run:<runId>`), driving the state machine of spec 1: admit, then model
 * turns until a final reply, each turn reserving the durable turn budget and retrying transient
 * provider failures (state `retry_scheduled`); settles `completed`, `failed`, `cancelled` or
 * `timed_out` exactly once. Postgres is what the API reads: every transition is written by an
 * activity in the same transaction as its product events.
 */
export async function runWorkflow(input: { runId: string }): Promise<RunState> {
  const { runId } = input;
  const work = new CancellationScope();
  let cancelled = false;
  let timedOut = false;
  setHandler(cancelRequested, () => {
    cancelled = true;
    work.cancel();
  });

  const admission = await store.admitRun({ runId });
  if (admission.kind === 'settled') {
    markState(admission.state);
    return admission.state;
  }
  markState('running');
  if (admission.cancellationRequested) cancelled = true;

  const budgetMs = Math.max(0, Math.min(admission.timeoutMs, admission.wallDeadlineAtMs - Date.now()));
  // The deadline timer lives outside the work scope, so cancelling the work does not stop it
  // from firing later (harmless: the workflow has settled and returned by then).
  void sleep(budgetMs).then(() => {
    timedOut = true;
    work.cancel();
  });

  let settlement: Settlement;
  if (cancelled) {
    settlement = cancelledSettlement();
  } else {
    try {
      settlement = await work.run(() => driveTurns(runId, admission.maxTurns));
    } catch (error) {
      if (!isCancellation(error)) throw error;
      settlement = timedOut && !cancelled ? timedOutSettlement(admission.timeoutMs) : cancelledSettlement();
    }
  }
  const state = await CancellationScope.nonCancellable(() => store.settleRun({ runId, ...settlement }));
  markState(state);
  return state;
}

async function driveTurns(runId: string, maxTurns: number): Promise<Settlement> {
  for (let turn = 1; ; turn++) {
    const turnId = `turn-${turn}`;
    for (let attempt = 1; ; attempt++) {
      const result = await model.callModel({ runId, turnId, attempt });
      if (result.kind === 'reply') return { state: 'completed', failure: null, invocationFailed: false };
      if (result.kind === 'budget_exhausted') {
        return { state: 'failed', failure: { errorCode: 'model_turn_limit_exceeded', errorExplanation: turnLimitExplanation(maxTurns) }, invocationFailed: true };
      }
      if (result.kind === 'tool_calls') {
        // Tool execution is the next slice of the run engine; until it lands such a run fails
        // visibly rather than pretending the tools ran.
        return {
          state: 'failed',
          failure: { errorCode: 'tool_execution_unavailable', errorExplanation: `The model called ${result.toolNames.join(', ')}, but this server does not execute tools yet.` },
          invocationFailed: false,
        };
      }
      if (!shouldRetryModel({ retryable: result.retryable, attempt })) {
        return { state: 'failed', failure: { errorCode: result.errorCode, errorExplanation: result.errorExplanation }, invocationFailed: true };
      }
      const delayMs = modelRetryDelayMs(attempt);
      await store.scheduleModelRetry({ runId, turnId, attempt, errorCode: result.errorCode, delayMs });
      markState('retry_scheduled');
      await sleep(delayMs);
      await store.resumeRun({ runId });
      markState('running');
    }
  }
}

function cancelledSettlement(): Settlement {
  return { state: 'cancelled', failure: { errorCode: 'cancelled', errorExplanation: 'The run was cancelled on request.' }, invocationFailed: false };
}

function timedOutSettlement(timeoutMs: number): Settlement {
  return { state: 'timed_out', failure: { errorCode: 'run_timed_out', errorExplanation: `The run exceeded its execution time limit of ${timeoutMs} ms.` }, invocationFailed: false };
}

function markState(state: RunState) {
  upsertSearchAttributes([{ key: runStateKey, value: state }]);
}
