import { condition } from '@temporalio/workflow';
import type { Admission } from '../../activities/run-activity-types.ts';
import type { RunContext } from './context.ts';
import { isRunGone, RUN_GONE_RESULT, runGone } from './failures.ts';
import { store } from './proxies.ts';

/** How often a run waiting for a place in its project's running-runs limit re-checks unwoken. */
export const ADMISSION_RECHECK_MS = 60_000;

/**
 * Admits the run. The project's running-runs limit may make it wait `queued`: until a run that
 * stops executing wakes it (`capacityFreed`, a hint: it re-checks every minute regardless), or
 * until it is cancelled (the next attempt settles it `cancelled`). Returns how admission ended
 * (admitted, or already settled), or `RUN_GONE_RESULT` when the run no longer exists.
 */
export async function admit(run: RunContext): Promise<Exclude<Admission, { kind: 'waiting' }> | typeof RUN_GONE_RESULT> {
  try {
    for (;;) {
      run.placeFreed = false;
      const admission = await store.admitRun({ runId: run.runId });
      if (admission.kind !== 'waiting') return admission;
      await condition(() => run.placeFreed || run.cancelled, ADMISSION_RECHECK_MS);
    }
  } catch (error) {
    if (isRunGone(error)) return runGone(run.runId);
    throw error;
  }
}
