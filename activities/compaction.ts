import { Context } from '@temporalio/activity';
import { invokeModel } from '../adapters/models/index.ts';
import { ModelInvocationError, type ModelResult } from '../adapters/models/types.ts';
import { SUMMARY_INSTRUCTIONS, summaryRequestText } from '../domain/context/index.ts';
import { MODEL_ATTEMPT_DEADLINE_MS } from '../domain/runs/model-retry.ts';
import { beginCompaction, finishCompaction, finishSummaryCall, startSummaryCall } from '../services/runtime/compaction/index.ts';
import { meterModelCall } from './model-call.ts';
import type { CompactionResult, CompactionStep, RunRecovery } from './run-activity-types.ts';
import type { CredentialKeyring } from '../services/kernel/credentials/index.ts';
import type { DeploymentPreset } from '../services/configuration/model-presets/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import type { ProviderType } from '../adapters/models/types.ts';

/** What the step needs of the run activities' deps. */
export type CompactionDeps = {
  system: () => ServiceContext;
  keyring: CredentialKeyring;
  modelBaseUrls: Record<ProviderType, string>;
  deploymentPresets: readonly DeploymentPreset[];
  currency: string;
  recovery?: RunRecovery;
};

const HEARTBEAT_MS = 1_000;

/**
 * The compaction step (docs/decisions/context-compaction.md): a verb decides what to summarize,
 * the vendor adapter writes the summary one part at a time (each part folded into the summary of
 * the parts before it), a verb records it. A transient provider failure fails the activity,
 * which Temporal retries (nothing of it was recorded but its invocation rows); any other refusal
 * is a rejected summary, which the workflow handles as it handles a summary that came back empty.
 */
export async function compactContext(deps: CompactionDeps, step: CompactionStep): Promise<CompactionResult> {
  const activity = Context.current();
  const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
  try {
    const ctx = deps.system();
    const plan = await beginCompaction({ ctx, deps, input: step });
    if (plan.kind === 'done') return plan.result;
    // As for a model call: a retry is usually a dead worker, whose sticky queue the run must not wait out.
    if (activity.info.attempt > 1) await deps.recovery?.releaseStickiness(step.runId);
    const signal = AbortSignal.any([activity.cancellationSignal, AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS)]);
    let summary = plan.previousSummary;
    for (const [index, part] of plan.parts.entries()) {
      const call = { runId: step.runId, summaryTurnId: plan.summaryTurnId, part: index + 1 };
      await startSummaryCall({ ctx, input: { ...call, facts: plan.facts, preset: plan.model.preset } });
      const meter = meterModelCall(plan.model);
      let result: ModelResult;
      try {
        result = await invokeModel({
          ...plan.model,
          baseUrl: deps.modelBaseUrls[plan.model.providerType],
          systemPrompt: SUMMARY_INSTRUCTIONS,
          messages: [{ role: 'user', text: summaryRequestText(summary, part) }],
          tools: [],
          signal,
        });
      } catch (error) {
        if (!(error instanceof ModelInvocationError)) throw error;
        await finishSummaryCall({ ctx, input: { ...call, outcome: meter.failed(error) } });
        if (error.retryable && !activity.cancellationSignal.aborted) throw error;
        return await finishCompaction({ ctx, input: { step, plan, summary: { failure: `the summary call failed: ${error.message}` } } });
      }
      meter.succeeded(result);
      const succeeded = {
        kind: 'succeeded' as const,
        usage: result.usage,
        prices: plan.model.prices,
        finishReason: result.finishReason,
        providerFinishReason: result.providerFinishReason,
        contextWindow: plan.model.contextWindow,
      };
      await finishSummaryCall({ ctx, input: { ...call, outcome: succeeded } });
      summary = result.text;
    }
    return await finishCompaction({ ctx, input: { step, plan, summary: { text: summary ?? '' } } });
  } finally {
    clearInterval(heartbeat);
  }
}
