/**
 * How the run workflow tells failures of its steps apart
 * (docs/decisions/failure-classification.md). Activities turn every domain error into a non-retryable ApplicationFailure
 * whose `type` is the error's code: a rule said no, and asking again cannot change the answer.
 * Anything else (the database or a store unreachable, a worker crash) is transient and retried
 * under the bounded policy of the step's profile.
 */

/** The failure `type` of a step whose run (or project) no longer exists. */
export const RUN_GONE_FAILURE_TYPE = 'not_found';

/** What a run settles with when one of its steps failed for good (permanently or retries spent). */
export const RUNTIME_FAILURE = {
  errorCode: 'runtime_failure',
  errorExplanation: 'The runtime could not complete a step of this run; the operator can find the cause in the run workflow history.',
} as const;
