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
import { inOneStatement } from '../../kernel/one-statement.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { isTransientConflict } from '../../kernel/database-errors.ts';
import { mainTurnNumber } from '../../../domain/runs/message-deltas.ts';
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
 * budgets, reserves the turn in the run's durable turn budget and records the attempt as started
 * (with the turn's "Model call started" event on its first attempt) atomically — in the common case
 * one read and one auto-committed write, else one transaction under the run's lock
 * (docs/decisions/one-write-model-call-begin.md) — then resolves the pinned preset to a provider and key.
 * Idempotent on `(runId, turnId, attempt)`: a replay reuses the reservation and the attempt
 * row. The vendor call itself is the caller's; `finishModelTurn` records how it ended.
 */
export async function beginModelTurn({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: BeginDeps;
  input: { runId: string; turnId: string; attempt: number };
}): Promise<ModelTurnPlan> {
  if (!ctx.inTransaction && input.attempt === 1 && mainTurnNumber(input.turnId) !== null) {
    const quick = await beginInOneWrite(ctx, deps, input);
    if (quick) return quick;
  }
  // A one-write begin of another turn may take the ordinal this transaction counted (it holds no
  // lock), or deadlock with it; the unique index or the deadlock refuses this one then, and it runs
  // again, counting anew. Main-thread turns of a run begin one at a time, so this is rare.
  for (let tries = 1; ; tries++) {
    try {
      return await beginUnderLock(ctx, deps, input);
    } catch (error) {
      if (ctx.inTransaction || tries >= 5 || !(isUniqueViolation(error) || isTransientConflict(error))) throw error;
    }
  }
}

/** Every case: the run locked by the read, the turn reserved under that lock. */
function beginUnderLock(ctx: ServiceContext, deps: BeginDeps, input: { runId: string; turnId: string; attempt: number }): Promise<ModelTurnPlan> {
  return withTransaction(ctx, async (tx) => {
    // One statement reads the turn's context and locks the run with its budget and reservations.
    const read = await loadTurnContext(tx.db, input.runId, { turnId: input.turnId, now: tx.clock.now() });
    const config = read.context.agentVersion.config as unknown as AgentConfig;
    const reservation = await reserveModelTurn(tx, { runId: input.runId, turnId: input.turnId, maxTurns: config.limits.maxTurns, read: read.budget! });
    if (!reservation.reserved && reservation.spentBudget) {
      const { scope, limit, budget, spend, held } = reservation.spentBudget;
      return { kind: 'budget_exceeded', errorExplanation: budgetExplanation(scope, limit, budget, spend, deps.currency, held) };
    }
    if (!reservation.reserved) return { kind: 'budget_exhausted', maxTurns: config.limits.maxTurns };
    await startModelInvocation(tx, { ...input, ...reservation.facts, preset: config.modelPreset, freshTurn: reservation.fresh }, read.context.run);
    const model = await resolveModel(tx, deps, read, config);
    if ('unavailable' in model) {
      await failModelInvocation(tx, { ...input, errorCode: model.errorCode, errorExplanation: model.errorExplanation, providerFinishReason: null });
      return { kind: 'unavailable', errorCode: model.errorCode, errorExplanation: model.errorExplanation };
    }
    return planTurn(tx, input, read, config, model);
  });
}

type BeginDeps = { keyring: CredentialKeyring; deploymentPresets: readonly DeploymentPreset[]; currency: string };
type TurnRead = Awaited<ReturnType<typeof loadTurnContext>>;

/**
 * The common case in two statements and no transaction (docs/decisions/cost-per-run.md): the
 * first attempt of a main-thread turn (one at a time per run) not reserved yet, of a run outside a
 * delegation tree (whose budget checks lock), its model available. The read takes no lock; the
 * reservation, the attempt and its "Model call started" are one statement (`inOneStatement`),
 * whose reservation takes the next ordinal: a turn reserved meanwhile holds it (or this turn id),
 * the unique index refuses the statement whole, and the locking path decides instead (null); so
 * does a deadlock with a concurrent begin (its statement's locks are taken in no set order). So
 * does every case but the common one: a spent budget, a replay, an unavailable model.
 */
async function beginInOneWrite(ctx: ServiceContext, deps: BeginDeps, input: { runId: string; turnId: string; attempt: number }): Promise<ModelTurnPlan | null> {
  const read = await loadTurnContext(ctx.db, input.runId, { turnId: input.turnId, now: ctx.clock.now(), lock: false });
  const budget = read.budget!;
  if (budget.budget.parent_session_id || budget.budget.coordinates_with_budget || budget.reservations.ordinal !== null) return null;
  const config = read.context.agentVersion.config as unknown as AgentConfig;
  const model = await resolveModel(ctx, deps, read, config);
  if ('unavailable' in model) return null;
  let reserved: boolean;
  try {
    reserved = await inOneStatement(ctx, async (one) => {
      const reservation = await reserveModelTurn(one, {
        runId: input.runId,
        turnId: input.turnId,
        maxTurns: config.limits.maxTurns,
        read: budget,
        ordinalFromRead: true,
      });
      if (!reservation.reserved || !reservation.fresh) return false;
      await startModelInvocation(one, { ...input, ...reservation.facts, preset: config.modelPreset, freshTurn: true }, read.context.run);
      return true;
    });
  } catch (error) {
    if (isUniqueViolation(error) || isTransientConflict(error)) return null;
    throw error;
  }
  return reserved ? planTurn(ctx, input, read, config, model) : null;
}

function resolveModel(ctx: ServiceContext, deps: BeginDeps, read: TurnRead, config: AgentConfig) {
  return resolveRunModel(ctx, {
    organizationId: read.context.run.organizationId,
    projectId: read.context.run.projectId,
    presetKey: config.modelPreset,
    keyring: deps.keyring,
    deploymentPresets: deps.deploymentPresets,
    projectPreset: read.projectPreset,
  });
}

/** After the turn is reserved and its attempt recorded: what the model is called with, or the compaction to run first. */
async function planTurn(
  ctx: ServiceContext,
  input: { runId: string; turnId: string; attempt: number },
  read: TurnRead,
  config: AgentConfig,
  model: RunModel,
): Promise<ModelTurnPlan> {
  const { context, thread: mainThread } = read;
  const offered = (tools: ToolDefinition[]) =>
    tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> }));
  const systemPrompt =
    renderRunInstructions(config.systemPrompt, usableSkills(context.skills), { sandboxed: config.sandbox.enabled }) +
    renderMemoryInstructions(context.session.memoryStores, { sandboxed: config.sandbox.enabled });
  const operationCallId = operationCallOfTurn(input.turnId);
  const run = { projectId: context.run.projectId, sessionId: context.run.sessionId };
  const mounting = { delegation: !(await isSelfCopy(ctx, context.session)) };
  const turn = operationCallId ? await operationTurn(ctx, config, context.session.memoryStores, mounting, systemPrompt, operationCallId, input.turnId) : null;
  const thread = turn?.thread ?? mainThread;
  const transcript = turn?.transcript ?? context.messages;
  const tools = offered(turn?.tools ?? (await mountedTools(ctx, config, context.session.memoryStores, mounting)));
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
    const steps = await runCompactionSteps(ctx.db, input.runId, compactionStepKey(input.turnId, input.attempt, 'threshold'));
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
