import { isRetryableToolFailure } from './failures.ts';
import { TOOL_ATTEMPTS_PER_RUN, type ToolCallStatus } from './states.ts';

/** What the attempt count needs to know about one earlier call of the same tool in the run. */
export type AttemptRecord = { status: ToolCallStatus; failureCode: string | null };

/**
 * Failed attempts of one tool since its last success, newest first (spec 3: three attempts per
 * tool per run; a success resets the count). Failures of the tool itself count — retryable codes
 * and `tool_retry_exhausted`; a denial, an approval expiry or a cancellation is no attempt of the
 * tool, and calls still open neither count nor reset.
 */
export function consecutiveFailures(history: readonly AttemptRecord[]): number {
  let count = 0;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const call = history[index]!;
    if (call.status === 'succeeded') break;
    const failedAttempt =
      (call.status === 'failed' || call.status === 'expired') &&
      call.failureCode !== null &&
      (isRetryableToolFailure(call.failureCode) || call.failureCode === 'tool_retry_exhausted');
    if (failedAttempt) count += 1;
  }
  return count;
}

/** A further call of the tool is refused with `tool_retry_exhausted`. */
export const isRetryExhausted = (history: readonly AttemptRecord[]): boolean => consecutiveFailures(history) >= TOOL_ATTEMPTS_PER_RUN;
