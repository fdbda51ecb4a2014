import { renderMemoryInstructions, type AttachedMemoryStore } from '../../../domain/memory/index.ts';
import type { AgentConfig, ToolDefinition } from '../../../domain/agent-config/index.ts';
import { operationCallOfTurn, renderOperationInstructions } from '../../../domain/runs/harness-operations.ts';
import { findOperationCall, operationTranscript } from '../runs/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { failModelInvocation, startModelInvocation } from '../model-invocations/index.ts';
import { reserveModelTurn } from '../model-invocations/index.ts';
import { budgetExplanation } from '../../../domain/usage/budget.ts';
import { resolveRunModel, type RunModel } from '../model-invocations/index.ts';
import type { DeploymentPreset } from '../../configuration/model-presets/index.ts';
import type { MessageRow } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isSelfCopy, mountedTools } from '../tool-calls/index.ts';
import { renderRunInstructions } from '../../../domain/skills/catalog.ts';
import { usableSkills } from '../runs/index.ts';
import { readThreadContext, runCompactionSteps } from '../compaction/index.ts';
import { loadTurnContext } from './turn-context.ts';
import {
  compactionStepKey,
  contextTokens,
  estimatePrefixTokens,
  estimateTextTokens,
  maxKeptTokens,
  planCompaction,
  renderSummaryForModel,
  resolveContextPolicy,
} from '../../../domain/context/index.ts';

/** A tool as the model is offered it: the published definition without owner or approval. */
export type OfferedTool = { name: string; description: string; inputSchema: Record<string, unknown> };

export type ModelTurnPlan =
  /** The run's turn budget is spent: the model is not called. */
  | { kind: 'budget_exhausted'; maxTurns: number }
  /** The session's or project's money or token budget is spent: the model is not called. */
  | { kind: 'budget_exceeded'; errorExplanation: string }
  /** The preset or provider cannot be used (recorded as a failed invocation): not retryable. */
  | { kind: 'unavailable'; errorCode: string; errorExplanation: string }
  /**
   * The turn's input would pass the agent's compaction threshold: compact first (the workflow's
   * compaction step), then begin the same attempt again. `tokens`: the input's estimate;
   * `prefixTokens`: the instructions' and tools' share of it.
   */
  | { kind: 'compact'; tokens: number; prefixTokens: number }
  /**
   * Call the model with this: the resolved model and key, the instructions, the latest summary
   * (null: none) and the transcript after it, the tools, and the input's estimate (`context`).
   */
  | {
      kind: 'ready';
      model: RunModel;
      systemPrompt: string;
      summary: string | null;
      transcript: MessageRow[];
      tools: OfferedTool[];
      run: { projectId: string; sessionId: string };
      context: { tokens: number; prefixTokens: number };
    };

/**
 * The first half of one model attempt (for the runtime): checks the session's and project's
 * budgets, reserves the turn in the run's durable turn budget and records the attempt as started (with the turn's "Model call started" event on its
 * first attempt) in one transaction, then resolves the pinned preset to a provider and key.
 * Idempotent on `(runId, turnId, attempt)`: a replay reuses the reservation and the attempt
 * row. The vendor call itself is the caller's; `finishModelTurn` records how it ended.
 */
export async function beginModelTurn({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring; deploymentPresets: readonly DeploymentPreset[]; currency: string };
  input: { runId: string; turnId: string; attempt: number };
}): Promise<ModelTurnPlan> {
  return withTransaction(ctx, async (tx) => {
    // One statement reads the turn's context and locks the run with its budget and reservations.
    const { context, thread: mainThread, budget, projectPreset } = await loadTurnContext(tx.db, input.runId, { turnId: input.turnId, now: tx.clock.now() });
    const config = context.agentVersion.config as unknown as AgentConfig;
    const reservation = await reserveModelTurn(tx, { runId: input.runId, turnId: input.turnId, maxTurns: config.limits.maxTurns, read: budget! });
    if (!reservation.reserved && reservation.spentBudget) {
      const { scope, limit, budget, spend, held } = reservation.spentBudget;
      return { kind: 'budget_exceeded', errorExplanation: budgetExplanation(scope, limit, budget, spend, deps.currency, held) };
    }
    if (!reservation.reserved) return { kind: 'budget_exhausted', maxTurns: config.limits.maxTurns };
    await startModelInvocation(tx, { ...input, ...reservation.facts, preset: config.modelPreset, freshTurn: reservation.fresh }, context.run);
    const model = await resolveRunModel(tx, {
      organizationId: context.run.organizationId,
      projectId: context.run.projectId,
      presetKey: config.modelPreset,
      keyring: deps.keyring,
      deploymentPresets: deps.deploymentPresets,
      projectPreset,
    });
    if ('unavailable' in model) {
      await failModelInvocation(tx, { ...input, errorCode: model.errorCode, errorExplanation: model.errorExplanation, providerFinishReason: null });
      return { kind: 'unavailable', errorCode: model.errorCode, errorExplanation: model.errorExplanation };
    }
    const offered = (tools: ToolDefinition[]) =>
      tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> }));
    const systemPrompt =
      renderRunInstructions(config.systemPrompt, usableSkills(context.skills), { sandboxed: config.sandbox.enabled }) +
      renderMemoryInstructions(context.session.memoryStores, { sandboxed: config.sandbox.enabled });
    const operationCallId = operationCallOfTurn(input.turnId);
    const run = { projectId: context.run.projectId, sessionId: context.run.sessionId };
    const mounting = { delegation: !(await isSelfCopy(tx, context.session)) };
    const turn = operationCallId ? await operationTurn(tx, config, context.session.memoryStores, mounting, systemPrompt, operationCallId, input.turnId) : null;
    const thread = turn?.thread ?? mainThread;
    const transcript = turn?.transcript ?? context.messages;
    const tools = offered(turn?.tools ?? (await mountedTools(tx, config, context.session.memoryStores, mounting)));
    const instructions = turn?.systemPrompt ?? systemPrompt;
    const prefixTokens = estimatePrefixTokens(instructions, tools);
    const tokens = contextTokens({
      counted: thread.counted,
      prefixTokens,
      summaryTokens: thread.latest ? estimateTextTokens(renderSummaryForModel(thread.latest.summary)) : 0,
      messages: transcript,
    });
    const policy = resolveContextPolicy(config.context, { contextWindow: model.contextWindow, modelPreset: config.modelPreset });
    if (policy.compactAtTokens !== null && tokens > policy.compactAtTokens) {
      // At most one threshold compaction per attempt, within the run's allowance, and only when
      // there is something to summarize: otherwise the call goes ahead (and the vendor decides).
      const steps = await runCompactionSteps(tx.db, input.runId, compactionStepKey(input.turnId, input.attempt, 'threshold'));
      const plan = planCompaction(transcript, { keepRecentTurns: policy.keepRecentTurns, maxKeptTokens: maxKeptTokens(policy.compactAtTokens, tokens) });
      if (!steps.stepTaken && steps.used < policy.maxCompactionsPerRun && plan) return { kind: 'compact', tokens, prefixTokens };
    }
    return {
      kind: 'ready',
      model,
      systemPrompt: instructions,
      summary: thread.latest?.summary ?? null,
      transcript,
      tools,
      run,
      context: { tokens, prefixTokens },
    };
  });
}

/**
 * A Harness Operation's sub-loop turn: its own thread, the operation's instructions, and the
 * parent's tools without the operations (they do not nest).
 */
async function operationTurn(
  tx: ServiceContext,
  config: AgentConfig,
  memoryStores: readonly AttachedMemoryStore[],
  mounting: { delegation: boolean },
  systemPrompt: string,
  operationCallId: string,
  turnId: string,
) {
  const call = await findOperationCall(tx.db, operationCallId);
  const operation = config.harnessOperations.find((entry) => entry.key === call?.operationKey);
  if (!call || !operation) throw new Error(`turn ${turnId} belongs to no started operation of this version`);
  const operationKeys = new Set(config.harnessOperations.map((entry) => entry.key));
  const thread = await readThreadContext(tx.db, { threadId: call.threadId });
  return {
    thread,
    systemPrompt: renderOperationInstructions(systemPrompt, operation),
    transcript: await operationTranscript(tx.db, call.threadId, thread.latest?.throughSequence ?? 0),
    tools: (await mountedTools(tx, config, memoryStores, mounting)).filter((tool) => !operationKeys.has(tool.name)),
  };
}
