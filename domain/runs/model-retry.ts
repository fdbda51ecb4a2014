/**
 * Model attempts (spec 3 "Events", "Limits"): each attempt has a five-minute deadline; timeouts
 * and transient provider failures are retried up to three times after the first attempt,
 * within the run deadline and turn budget, backing off 2 s, 4 s, 8 s.
 */
export const MODEL_ATTEMPT_DEADLINE_MS = 5 * 60 * 1000;
export const MODEL_MAX_ATTEMPTS = 4;

export function modelRetryDelayMs(failedAttempt: number): number {
  return 2000 * 2 ** (failedAttempt - 1);
}

export function shouldRetryModel(input: { retryable: boolean; attempt: number }): boolean {
  return input.retryable && input.attempt < MODEL_MAX_ATTEMPTS;
}

export const turnLimitExplanation = (maxTurns: number) => `The run used all ${maxTurns} model turns its agent version allows (limits.maxTurns = ${maxTurns}).`;
