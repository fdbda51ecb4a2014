import type { ModelPrices } from '../../../domain/usage/prices.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { completeModelInvocation, failModelInvocation, startModelInvocation, type InvocationUsage } from '../model-invocations/index.ts';

export type SummaryCall = { runId: string; summaryTurnId: string; part: number };

/**
 * A compaction's summary call is a model invocation like any other (attempts, usage, cost, the
 * ledger, budgets): one row per part, `turnId` the step's summary turn id, its attempt the part's
 * number. No "model call started" event: `context.compacted` tells of the compaction. Idempotent
 * as every invocation is: a retried step reuses its rows and counts a completed part once.
 */
export async function startSummaryCall({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: SummaryCall & { facts: { agentId: string; apiKeyId: string | null }; preset: string };
}): Promise<void> {
  await startModelInvocation(ctx, {
    runId: input.runId,
    turnId: input.summaryTurnId,
    attempt: input.part,
    agentId: input.facts.agentId,
    apiKeyId: input.facts.apiKeyId,
    preset: input.preset,
    announce: false,
  });
}

export async function finishSummaryCall({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: SummaryCall & {
    outcome:
      | {
          kind: 'succeeded';
          usage: InvocationUsage;
          prices: ModelPrices | null;
          finishReason: string;
          providerFinishReason: string | null;
          contextWindow: number | null;
        }
      | { kind: 'failed'; errorCode: string; errorExplanation: string; providerFinishReason: string | null };
  };
}): Promise<void> {
  const { outcome } = input;
  const attempt = { runId: input.runId, turnId: input.summaryTurnId, attempt: input.part };
  if (outcome.kind === 'failed') {
    await failModelInvocation(ctx, {
      ...attempt,
      errorCode: outcome.errorCode,
      errorExplanation: outcome.errorExplanation,
      providerFinishReason: outcome.providerFinishReason,
    });
    return;
  }
  await completeModelInvocation(ctx, {
    ...attempt,
    usage: outcome.usage,
    prices: outcome.prices,
    finishReason: outcome.finishReason,
    providerFinishReason: outcome.providerFinishReason,
    thinking: null,
    context: { window: outcome.contextWindow, meter: false },
  });
}
