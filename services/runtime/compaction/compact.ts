import { and, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../../db/client.ts';
import { contextCompactions, runs, sessions } from '../../../db/schema/index.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import {
  compactionStepKey,
  estimateMessagesTokens,
  estimateTextTokens,
  judgeSummary,
  maxKeptTokens,
  planCompaction,
  renderSummaryForModel,
  resolveContextPolicy,
  summaryRequestText,
  summaryTurnId,
  type ResolvedContextPolicy,
} from '../../../domain/context/index.ts';
import { mainTurnNumber } from '../../../domain/runs/message-deltas.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { budgetExplanation } from '../../../domain/usage/budget.ts';
import type { DeploymentPreset } from '../../configuration/model-presets/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { checkRunBudget, resolveRunModel, type RunModel } from '../model-invocations/index.ts';
import { loadRunVersion, operationTranscript, threadOfTurn, type MessageRow } from '../runs/index.ts';
import { readThreadContext } from './thread-context.ts';

export type CompactionReason = 'threshold' | 'overflow';

/** How a compaction step ended (the run workflow's activity result). */
export type CompactionResult =
  | { kind: 'compacted'; compaction: number; tokensBefore: number; tokensAfter: number; messagesCovered: number }
  /** The summary was refused (empty, or no shorter than what it replaces): the step counts, nothing changed. */
  | { kind: 'rejected'; reason: string }
  /** No compaction can help: the run used up `maxCompactionsPerRun`, or nothing is left to summarize. */
  | { kind: 'limit'; explanation: string }
  /** The summary could not be written: a spent budget, an unusable summary preset. */
  | { kind: 'failed'; errorCode: string; errorExplanation: string };

export type CompactionStep = { runId: string; turnId: string; attempt: number; reason: CompactionReason; tokens: number; prefixTokens: number };

/** What the summarizer must be asked: each part is folded into the summary of the parts before it. */
export type SummaryPlan = {
  kind: 'summarize';
  model: RunModel;
  stepKey: string;
  summaryTurnId: string;
  facts: { agentId: string; apiKeyId: string | null };
  previousSummary: string | null;
  /** The covered messages, in parts that each fit the summarizer's window. */
  parts: MessageRow[][];
  /** What `finishCompaction` records with the summary. */
  record: { threadId: string; throughSequence: number; messagesCovered: number; tokensBefore: number; keptTokens: number; replacedText: string };
};

export type CompactionPlanStep = SummaryPlan | { kind: 'done'; result: CompactionResult };

/**
 * The first half of a compaction step (docs/decisions/context-compaction.md), for the runtime:
 * the step already recorded (a retried activity) answers as it ended; otherwise the run's
 * compaction allowance, where the cut falls (`planCompaction`), the run's budgets and the
 * summary preset decide whether there is a summary to write, and what to ask for it. Writes
 * nothing; the summary calls are recorded one by one (`startSummaryCall`, ...), and
 * `finishCompaction` records the outcome.
 */
export async function beginCompaction({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring; deploymentPresets: readonly DeploymentPreset[]; currency: string };
  input: CompactionStep;
}): Promise<CompactionPlanStep> {
  const stepKey = compactionStepKey(input.turnId, input.attempt, input.reason);
  const [existing] = await ctx.db
    .select()
    .from(contextCompactions)
    .where(and(eq(contextCompactions.runId, input.runId), eq(contextCompactions.stepKey, stepKey)));
  if (existing) return { kind: 'done', result: resultOfRow(existing) };

  const { run, agentVersion } = await loadRunVersion(ctx.db, input.runId);
  const config = agentVersion.config as unknown as AgentConfig;
  const model = await resolveRunModel(ctx, {
    organizationId: run.organizationId,
    projectId: run.projectId,
    presetKey: config.context?.summaryPreset ?? config.modelPreset,
    keyring: deps.keyring,
    deploymentPresets: deps.deploymentPresets,
  });
  if ('unavailable' in model) return { kind: 'done', result: { kind: 'failed', errorCode: model.errorCode, errorExplanation: model.errorExplanation } };
  // The agent's own model decides the threshold; the summarizer's window only the part size.
  const turnModel = config.context?.summaryPreset === undefined ? model : await resolveRunModel(ctx, { ...run, presetKey: config.modelPreset, ...deps });
  const policy = resolveContextPolicy(config.context, {
    contextWindow: 'unavailable' in turnModel ? null : turnModel.contextWindow,
    modelPreset: config.modelPreset,
  });

  const [{ used }] = rowsOf<{ used: number }>(
    await ctx.db.execute(sql`select count(*)::int as used from context_compactions where run_id = ${input.runId}::uuid`),
  ) as [{ used: number }];
  if (Number(used) >= policy.maxCompactionsPerRun)
    return {
      kind: 'done',
      result: { kind: 'limit', explanation: `this run used all ${policy.maxCompactionsPerRun} of its compactions (context.maxCompactionsPerRun)` },
    };

  const threadId = (await threadOfTurn(ctx.db, input.turnId)) ?? run.threadId;
  const thread = await readThreadContext(ctx.db, { threadId });
  const messages = await operationTranscript(ctx.db, threadId, thread.latest?.throughSequence ?? 0);
  const plan = planCompaction(messages, { keepRecentTurns: policy.keepRecentTurns, maxKeptTokens: maxKeptTokens(policy.compactAtTokens, input.tokens) });
  if (!plan) {
    const recent = estimateMessagesTokens(messages);
    return { kind: 'done', result: { kind: 'limit', explanation: `nothing is left to summarize: the newest turn alone is about ${recent} tokens` } };
  }

  const budget = await checkRunBudget(ctx, input.runId);
  if (budget.spentBudget) {
    const { scope, limit, budget: stored, spend } = budget.spentBudget;
    return {
      kind: 'done',
      result: { kind: 'failed', errorCode: 'budget_exceeded', errorExplanation: budgetExplanation(scope, limit, stored, spend, deps.currency) },
    };
  }
  const previousSummary = thread.latest?.summary ?? null;
  return {
    kind: 'summarize',
    model,
    stepKey,
    summaryTurnId: summaryTurnId(stepKey),
    facts: budget.facts,
    previousSummary,
    parts: inParts(plan.covered, partTokens(model, policy, input.tokens)),
    record: {
      threadId,
      throughSequence: plan.throughSequence,
      // Everything through the cut: the summary stands for the thread's whole beginning.
      messagesCovered: await countThrough(ctx, threadId, plan.throughSequence),
      tokensBefore: input.tokens,
      keptTokens: input.prefixTokens + estimateMessagesTokens(plan.kept),
      replacedText: summaryRequestText(previousSummary, plan.covered),
    },
  };
}

/**
 * A summary call's share of the covered messages: half the smallest of the summarizer's window,
 * the threshold and the turn's input, so each summary request fits where the turn did not.
 */
function partTokens(model: RunModel, policy: ResolvedContextPolicy, turnTokens: number): number {
  return Math.floor(Math.min(model.contextWindow ?? Infinity, policy.compactAtTokens ?? Infinity, turnTokens) / 2);
}

function inParts(messages: MessageRow[], maxTokens: number): MessageRow[][] {
  const parts: MessageRow[][] = [];
  let current: MessageRow[] = [];
  let tokens = 0;
  for (const message of messages) {
    const size = estimateMessagesTokens([message]);
    if (current.length > 0 && tokens + size > maxTokens) {
      parts.push(current);
      current = [];
      tokens = 0;
    }
    current.push(message);
    tokens += size;
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

async function countThrough(ctx: ServiceContext, threadId: string, throughSequence: number): Promise<number> {
  const [row] = rowsOf<{ count: number }>(
    await ctx.db.execute(sql`select count(*)::int as count from messages where thread_id = ${threadId}::uuid and sequence <= ${throughSequence}::int`),
  );
  return Number(row?.count ?? 0);
}

/**
 * The second half of a compaction step, in one transaction under the thread's lock: the
 * summary judged (`judgeSummary`), the step recorded once (a repeat answers as the first did),
 * and for an accepted summary its number in the thread, the thread's context count reset to the
 * estimate of what the model reads after it, the run's and session's meters, and
 * `context.compacted`.
 */
export async function finishCompaction({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { step: CompactionStep; plan: SummaryPlan; summary: { text: string } | { failure: string } };
}): Promise<CompactionResult> {
  const { step, plan } = input;
  const verdict =
    'failure' in input.summary ? { accepted: false as const, reason: input.summary.failure } : judgeSummary(input.summary.text, plan.record.replacedText);
  return withTransaction(ctx, async (tx) => {
    const [run] = await tx.db
      .select({ id: runs.id, organizationId: runs.organizationId, projectId: runs.projectId, sessionId: runs.sessionId })
      .from(runs)
      .where(eq(runs.id, step.runId));
    if (!run) throw new Error('the run of this compaction is gone');
    const [locked] = rowsOf<{ next_number: number }>(
      await tx.db.execute(sql`
        select (select coalesce(max(number), 0) + 1 from context_compactions where thread_id = t.id)::int as next_number
        from threads t where t.id = ${plan.record.threadId}::uuid for update`),
    );
    const [existing] = await tx.db
      .select()
      .from(contextCompactions)
      .where(and(eq(contextCompactions.runId, step.runId), eq(contextCompactions.stepKey, plan.stepKey)));
    if (existing) return resultOfRow(existing);
    const number = verdict.accepted ? Number(locked?.next_number ?? 1) : null;
    const tokensAfter = verdict.accepted ? plan.record.keptTokens + estimateTextTokens(renderSummaryForModel(verdict.summary)) : step.tokens;
    const [row] = await tx.db
      .insert(contextCompactions)
      .values({
        organizationId: run.organizationId,
        projectId: run.projectId,
        threadId: plan.record.threadId,
        sessionId: run.sessionId,
        runId: run.id,
        turnId: step.turnId,
        stepKey: plan.stepKey,
        reason: step.reason,
        status: verdict.accepted ? 'accepted' : 'rejected',
        number,
        summary: verdict.accepted ? verdict.summary : null,
        rejection: verdict.accepted ? null : verdict.reason,
        throughSequence: plan.record.throughSequence,
        messagesCovered: plan.record.messagesCovered,
        tokensBefore: plan.record.tokensBefore,
        tokensAfter,
        createdAt: tx.clock.now(),
      })
      .returning();
    if (!verdict.accepted) return resultOfRow(row!);
    await tx.db.execute(sql`
      update threads set context_tokens = ${tokensAfter}::int, context_through_sequence = last_message_sequence
      where id = ${plan.record.threadId}::uuid`);
    // Only the session's own thread moves its meter (a Harness Operation's sub-loop has its own).
    const mainThread = mainTurnNumber(step.turnId) !== null;
    await tx.db
      .update(runs)
      .set({ contextCompactions: sql`${runs.contextCompactions} + 1` })
      .where(eq(runs.id, run.id));
    if (mainThread)
      await tx.db
        .update(sessions)
        .set({ contextCompactions: sql`${sessions.contextCompactions} + 1` })
        .where(eq(sessions.id, run.sessionId));
    await appendProductEvent(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      aggregateType: 'run',
      aggregateId: run.id,
      kind: EVENT_KINDS.contextCompacted,
      publicPayload: {
        sessionId: run.sessionId,
        runId: run.id,
        turn: mainTurnNumber(step.turnId),
        turnId: step.turnId,
        reason: step.reason,
        tokensBefore: plan.record.tokensBefore,
        tokensAfter,
        messagesCovered: plan.record.messagesCovered,
        compaction: number,
      },
    });
    return resultOfRow(row!);
  });
}

function resultOfRow(row: typeof contextCompactions.$inferSelect): CompactionResult {
  if (row.status === 'rejected') return { kind: 'rejected', reason: row.rejection ?? 'the summary was rejected' };
  return { kind: 'compacted', compaction: row.number ?? 0, tokensBefore: row.tokensBefore, tokensAfter: row.tokensAfter, messagesCovered: row.messagesCovered };
}
