import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { DelegationBatch, DelegationStart, ToolProgressStep } from '../../activities/run-activity-types.ts';
import type { RunContext } from './context.ts';
import { awaitChildRun } from './delegation.ts';
import { store } from './proxies.ts';

export type DelegationCall = { toolCallId: string; delegateKey: string; maxParallel: number };

/**
 * A turn's delegation calls, run together (issue 49, docs/decisions/parallel-delegation.md):
 * every child run is queued first (visible as `queued`), then started in call order as places
 * free up, at most `maxParallel` of one delegate and the batch's ceiling in all; a refused call
 * takes no place. Each child is a child workflow as before (awaitChildRun). Each finish records
 * its answer, then reads the turn's progress and resumes the run when every call is final: of two
 * finishes at once, the later read sees both answers (each read follows its own commit), and a
 * second resume changes nothing, so the turn resumes once. Cancelled, the running children are signalled (each settles
 * `cancelled`) and those whose workflow never began withdrawn (settled `cancelled` without
 * starting). Returns the step of the finish that resumed the run, else the last one's.
 */
export async function runDelegationsTogether(
  run: RunContext,
  turnId: string,
  calls: readonly DelegationCall[],
  queued: DelegationBatch | undefined,
): Promise<ToolProgressStep | undefined> {
  const { runId } = run;
  const starts = new Map<string, DelegationStart>(queued?.starts.map((entry) => [entry.toolCallId, entry.start]));
  const waiting = [...calls];
  const active: Array<Promise<void>> = [];
  const places = new Map<string, number>();
  const begun = new Set<string>();
  let taken = 0;
  let moved = false;
  let last: ToolProgressStep | undefined;

  const launch = async (call: DelegationCall, start: DelegationStart) => {
    try {
      if (start.kind === 'started') await awaitChildRun(runId, start, () => begun.add(call.toolCallId));
      // Cleared before the finish's read of Postgres, as before every read the run may wait after.
      run.woken = false;
      const step = await store.finishDelegation({ runId, toolCallId: call.toolCallId, start, turnId });
      if (!last?.resumed) last = step;
    } finally {
      if (start.kind === 'started') {
        taken--;
        places.set(call.delegateKey, places.get(call.delegateKey)! - 1);
      }
      moved = true;
    }
  };

  try {
    let ceiling = queued?.ceiling ?? 1;
    const unqueued = calls.filter((call) => !starts.has(call.toolCallId)).map((call) => call.toolCallId);
    if (unqueued.length > 0) {
      // Not cut short by a cancellation: what it queues is then withdrawn below, none left behind.
      const batch = await CancellationScope.nonCancellable(() => store.startDelegations({ runId, toolCallIds: unqueued }));
      ceiling = batch.ceiling;
      for (const entry of batch.starts) starts.set(entry.toolCallId, entry.start);
    }
    for (;;) {
      for (let at = 0; at < waiting.length;) {
        const call = waiting[at]!;
        const start = starts.get(call.toolCallId)!;
        if (start.kind === 'started') {
          const ofKey = places.get(call.delegateKey) ?? 0;
          if (taken >= ceiling || ofKey >= call.maxParallel) {
            at++;
            continue;
          }
          taken++;
          places.set(call.delegateKey, ofKey + 1);
        }
        waiting.splice(at, 1);
        active.push(launch(call, start));
      }
      if (waiting.length === 0) break;
      moved = false;
      await condition(() => moved);
    }
    await Promise.all(active);
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(async () => {
        await Promise.allSettled(active);
        // Children whose workflow never began (waiting, or cut short starting) are settled here.
        const unstarted = calls.filter((call) => starts.get(call.toolCallId)?.kind === 'started' && !begun.has(call.toolCallId));
        if (unstarted.length > 0) await store.withdrawDelegations({ toolCallIds: unstarted.map((call) => call.toolCallId) });
      });
    }
    throw error;
  }
  return last;
}
