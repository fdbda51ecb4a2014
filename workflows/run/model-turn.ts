import { sleep } from '@temporalio/workflow';
import { CONTEXT_LIMIT_REACHED, contextLimitExplanation } from '../../domain/context/index.ts';
import { modelRetryDelayMs, shouldRetryModel } from '../../domain/runs/model-retry.ts';
import type { RunState } from '../../domain/runs/states.ts';
import { markState, type RunContext } from './context.ts';
import { models, store } from './proxies.ts';
import { type OperationRunner, settleToolCalls } from './tool-calls.ts';

export type TurnEnd =
  /** `settled`: the run's state, when the reply's own step settled it (`settleOnReply`). */
  | { kind: 'reply'; settled?: RunState }
  | { kind: 'tools_done' }
  | { kind: 'budget_exhausted'; maxTurns: number }
  | { kind: 'failed'; errorCode: string; errorExplanation: string };

/**
 * One model turn with its retries, and its tool calls when it asked for tools. `runOperation`
 * runs the turn's Harness Operation calls; null for a turn of an operation's own sub-loop.
 * `settleOnReply`: a final reply also settles the run, in the model call's own step.
 */
export async function modelTurn(run: RunContext, turnId: string, runOperation: OperationRunner | null, settleOnReply = false): Promise<TurnEnd> {
  const { runId } = run;
  for (let attempt = 1; ; attempt++) {
    const result = await models.callModel({ runId, turnId, attempt, ...(settleOnReply ? { settleOnReply } : {}) });
    if (result.kind === 'compact') {
      // Past the threshold: compact, then the same attempt again. Whatever the step's outcome,
      // the attempt does not ask again (one threshold compaction per attempt), so this ends.
      const compacted = await models.compactContext({ runId, turnId, attempt, reason: 'threshold', tokens: result.tokens, prefixTokens: result.prefixTokens });
      if (compacted.kind === 'failed') return { kind: 'failed', errorCode: compacted.errorCode, errorExplanation: compacted.errorExplanation };
      attempt -= 1;
      continue;
    }
    if (result.kind === 'context_overflow') {
      // The vendor refused the input as too long: compact and try again, within the run's
      // allowance of compactions (docs/decisions/context-compaction.md).
      const compacted = await models.compactContext({ runId, turnId, attempt, reason: 'overflow', tokens: result.tokens, prefixTokens: result.prefixTokens });
      if (compacted.kind === 'compacted') continue;
      if (compacted.kind === 'failed') return { kind: 'failed', errorCode: compacted.errorCode, errorExplanation: compacted.errorExplanation };
      return { kind: 'failed', errorCode: CONTEXT_LIMIT_REACHED, errorExplanation: contextLimitExplanation(result, compacted) };
    }
    if (result.kind === 'reply') return result;
    if (result.kind === 'budget_exhausted') return { kind: 'budget_exhausted', maxTurns: result.maxTurns };
    if (result.kind === 'tool_calls') {
      await settleToolCalls(run, turnId, runOperation);
      return { kind: 'tools_done' };
    }
    if (!shouldRetryModel({ retryable: result.retryable, attempt }))
      return { kind: 'failed', errorCode: result.errorCode, errorExplanation: result.errorExplanation };
    const delayMs = modelRetryDelayMs(attempt);
    await store.scheduleModelRetry({ runId, turnId, attempt, errorCode: result.errorCode, delayMs });
    markState('retry_scheduled');
    await sleep(delayMs);
    await store.resumeRun({ runId });
    markState('running');
  }
}
