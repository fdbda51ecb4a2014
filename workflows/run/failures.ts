import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { log } from '@temporalio/workflow';
import { RUN_GONE_FAILURE_TYPE } from '../../domain/runs/runtime-failures.ts';

/** What the workflow returns when its run no longer exists (say, its project was deleted). */
export const RUN_GONE_RESULT = 'run_gone';

export function runGone(runId: string): typeof RUN_GONE_RESULT {
  // Nothing is left to settle or to report to: the workflow ends cleanly rather than retrying.
  log.info('the run no longer exists; the workflow ends', { runId });
  return RUN_GONE_RESULT;
}

/** A failed step: activities fail as `ActivityFailure`, local activities with the activity's own `ApplicationFailure`. */
export function isStepFailure(error: unknown): error is ActivityFailure | ApplicationFailure {
  return error instanceof ActivityFailure || error instanceof ApplicationFailure;
}

export function failureType(error: unknown): string | null {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure ? (failure.type ?? null) : null;
}

export function isRunGone(error: unknown): boolean {
  return isStepFailure(error) && failureType(error) === RUN_GONE_FAILURE_TYPE;
}
