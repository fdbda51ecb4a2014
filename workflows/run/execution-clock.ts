import { CancellationScope, sleep } from '@temporalio/workflow';

/**
 * The run's execution-time limit (`limits.timeoutMs`) as a pausable workflow timer: it runs
 * while the run executes or waits for a caller tool, and pauses while the run waits for an
 * approval (spec 1: the deadline is paused for the gated run).
 */
export function executionClock(limitMs: number, onExpire: () => void) {
  let remainingMs = limitMs;
  let runningSince: number | null = null;
  let timer: CancellationScope | null = null;
  return {
    start() {
      if (runningSince !== null) return;
      runningSince = Date.now();
      const scope = new CancellationScope();
      timer = scope;
      scope
        .run(() => sleep(Math.max(0, remainingMs)))
        .then(onExpire, () => {
          // Cancelled by pause(): nothing to do.
        });
    },
    /** What is left of the limit now (carried across continue-as-new). */
    remainingMs() {
      return runningSince === null ? remainingMs : remainingMs - (Date.now() - runningSince);
    },
    pause() {
      if (runningSince === null) return;
      remainingMs -= Date.now() - runningSince;
      runningSince = null;
      timer?.cancel();
      timer = null;
    },
  };
}

export type ExecutionClock = ReturnType<typeof executionClock>;
