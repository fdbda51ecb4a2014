import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { HarnessOperationEnd } from '../../activities/run-activity-types.ts';
import { turnLimitExplanation } from '../../domain/runs/model-retry.ts';
import type { RunContext } from './context.ts';
import { modelTurn } from './model-turn.ts';
import { store } from './proxies.ts';

/**
 * A Harness Operation call: a focused sub-loop of model turns (turn ids `op:<callId>:turn-N`,
 * each reserving from this run's budget) on the operation's own thread, within its
 * `timeoutMs`; how it ended becomes the call's result or tool error, never the run's failure.
 * It runs here, in this workflow (docs/decisions/harness-operation-sub-loop.md); its turns run their
 * tool calls without a runner for operations, so operations do not nest.
 */
export async function runOperation(run: RunContext, toolCallId: string) {
  const { runId } = run;
  const startedAt = Date.now();
  const { timeoutMs, operationKey } = await store.startHarnessOperation({ runId, toolCallId });
  let turns = 0;
  let end: HarnessOperationEnd;
  try {
    end = await CancellationScope.withTimeout(timeoutMs, async (): Promise<HarnessOperationEnd> => {
      for (let turn = 1; ; turn++) {
        turns = turn;
        const ended = await modelTurn(run, `op:${toolCallId}:turn-${turn}`, null);
        if (ended.kind === 'reply') return { kind: 'reply' };
        if (ended.kind === 'budget_exhausted') return { kind: 'failed', reason: 'turn_budget_exhausted', explanation: turnLimitExplanation(ended.maxTurns) };
        if (ended.kind === 'failed') return { kind: 'failed', reason: 'model_failed', explanation: ended.errorExplanation };
      }
    });
  } catch (error) {
    // The operation's own deadline; a cancelled or timed-out run goes on cancelling.
    if (!isCancellation(error) || run.cancelled || run.timedOut) throw error;
    end = { kind: 'timed_out', timeoutMs };
  }
  await store.finishHarnessOperation({ runId, toolCallId, operationKey, end, turns, durationMs: Date.now() - startedAt });
}
