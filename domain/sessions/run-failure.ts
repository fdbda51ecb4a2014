import type { RunState } from '../runs/states.ts';

/** The `failure` of a failed, cancelled or timed-out run (`{errorCode, errorExplanation}`). */
export type RunFailure = { errorCode: string; errorExplanation: string };

const FAILURE_STATES: readonly RunState[] = ['failed', 'cancelled', 'timed_out'];

/** Whether a run in `state` carries a `failure` in its public object. */
export function hasFailure(state: RunState): boolean {
  return FAILURE_STATES.includes(state);
}

/**
 * What a run settled in `state` shows when the runtime recorded no specific failure: a stable
 * code per state, so a client can always branch on `failure.errorCode`.
 */
export function defaultFailureOf(state: RunState): RunFailure | null {
  switch (state) {
    case 'failed':
      return { errorCode: 'run_failed', errorExplanation: 'The run failed.' };
    case 'cancelled':
      return { errorCode: 'run_cancelled', errorExplanation: 'The run was cancelled.' };
    case 'timed_out':
      return { errorCode: 'run_timed_out', errorExplanation: 'The run did not settle before its deadline.' };
    default:
      return null;
  }
}
