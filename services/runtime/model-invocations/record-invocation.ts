import { and, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../../db/client.ts';
import { costNanos, type TokenUsage } from '../../../domain/usage/cost.ts';
import type { ModelPrices } from '../../../domain/usage/prices.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { addToUsageRollup } from '../../kernel/usage/index.ts';
import { modelInvocations, runs } from '../../../db/schema/index.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { RunRow } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';

/** An attempt's token counts, as the adapters report them (cached input included in `inputTokens`). */
export type InvocationUsage = TokenUsage;

/** The run's ids an invocation row and its events carry. */
export type InvocationRun = Pick<RunRow, 'id' | 'organizationId' | 'projectId' | 'sessionId'>;

/** `known`: the run as the caller already read it (ids never change), saving a read. */
async function runOf(ctx: ServiceContext, runId: string, known?: InvocationRun): Promise<InvocationRun> {
  if (known) {
    if (known.id !== runId) throw new Error("the run given is not the invocation's run");
    return known;
  }
  const [run] = await ctx.db
    .select({ id: runs.id, organizationId: runs.organizationId, projectId: runs.projectId, sessionId: runs.sessionId })
    .from(runs)
    .where(eq(runs.id, runId));
  if (!run) throw new NotFoundError('No run with that id');
  return run;
}

/**
 * Records that attempt `attempt` of turn `turnId` is starting. The "model call started" event is
 * written once per turn — on the turn's first attempt row — so a replayed activity never
 * duplicates it.
 */
export async function startModelInvocation(
  ctx: ServiceContext,
  input: {
    runId: string;
    turnId: string;
    attempt: number;
    agentId: string;
    preset: string;
    apiKeyId: string | null;
    /** false: no "model call started" event (a compaction's summary call: `context.compacted` tells of it). */
    announce?: boolean;
    /** The turn was reserved in the caller's transaction (`reserveModelTurn`'s `fresh`): no attempt of it exists yet. */
    freshTurn?: boolean;
  },
  known?: InvocationRun,
): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const run = await runOf(tx, input.runId, known);
    const row = {
      organizationId: run.organizationId,
      projectId: run.projectId,
      runId: run.id,
      turnId: input.turnId,
      attempt: input.attempt,
      status: 'started' as const,
      agentId: input.agentId,
      preset: input.preset,
      apiKeyId: input.apiKeyId,
      startedAt: tx.clock.now(),
    };
    const announce = input.attempt === 1 && input.announce !== false;
    const started = {
      organizationId: run.organizationId,
      projectId: run.projectId,
      aggregateType: 'run',
      aggregateId: run.id,
      kind: EVENT_KINDS.modelCallStarted,
      publicPayload: { runId: run.id, sessionId: run.sessionId, turnId: input.turnId },
    };
    if (input.freshTurn && announce) {
      // No attempt of a turn reserved in this transaction can be recorded yet: the insert rides
      // with its event, one statement.
      await holdWrite(tx, tx.db.insert(modelInvocations).values(row).onConflictDoNothing());
      await appendProductEvent(tx, started);
      return;
    }
    const inserted = await tx.db.insert(modelInvocations).values(row).onConflictDoNothing().returning({ id: modelInvocations.id });
    if (inserted.length === 1 && announce) await appendProductEvent(tx, started);
  });
}

/**
 * Completes an attempt with its usage and its cost at `prices`, and adds both to the run's and
 * the session's counters in one statement, once: only a row still `started` is completed (a
 * replay changes nothing). The day's usage rollup (`usage_daily`, the ledger and the project's
 * monthly budget) is added to with the transaction's next event append (`holdWrite`), so the
 * project's hot rollup row is locked no longer than its event counter is.
 */
export async function completeModelInvocation(
  ctx: ServiceContext,
  input: {
    runId: string;
    turnId: string;
    attempt: number;
    usage: InvocationUsage;
    prices: ModelPrices | null;
    finishReason: string;
    providerFinishReason: string | null;
    thinking: string | null;
    /**
     * The model's context window when known; `meter`: the call read the run's main thread, so its
     * input and the window become the run's and the session's context meter.
     */
    context?: { window: number | null; meter: boolean };
  },
  known?: InvocationRun,
): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const run = await runOf(tx, input.runId, known);
    const { usage } = input;
    const window = input.context?.window ?? null;
    const meter = input.context?.meter === true;
    const cost = costNanos(usage, input.prices);
    const now = tx.clock.now();
    const [completed] = rowsOf<{ agent_id: string; preset: string | null; api_key_id: string | null; model_calls: number }>(
      await tx.db.execute(sql`
        with invocation as (
          update model_invocations set status = 'succeeded', input_tokens = ${usage.inputTokens}, output_tokens = ${usage.outputTokens},
            cache_read_tokens = ${usage.cacheReadTokens}, cache_write_tokens = ${usage.cacheWriteTokens}, cost_nanos = ${cost},
            finish_reason = ${input.finishReason}, provider_finish_reason = ${input.providerFinishReason}, thinking = ${input.thinking}, context_window = ${window}::int,
            completed_at = ${now.toISOString()}::timestamptz
          where run_id = ${run.id}::uuid and turn_id = ${input.turnId} and attempt = ${input.attempt} and status = 'started'
          returning preset, api_key_id
        ), counted_run as (
          update runs set model_calls = model_calls + 1, input_tokens = input_tokens + ${usage.inputTokens}, output_tokens = output_tokens + ${usage.outputTokens},
            cache_read_tokens = cache_read_tokens + ${usage.cacheReadTokens}, cache_write_tokens = cache_write_tokens + ${usage.cacheWriteTokens}, cost_nanos = cost_nanos + ${cost},
            context_last_input_tokens = case when ${meter}::boolean then ${usage.inputTokens}::int else context_last_input_tokens end,
            context_window = case when ${meter}::boolean then ${window}::int else context_window end
          where id = ${run.id}::uuid and exists (select 1 from invocation)
          returning model_calls
        ), counted_session as (
          update sessions set input_tokens = input_tokens + ${usage.inputTokens}, output_tokens = output_tokens + ${usage.outputTokens},
            cache_read_tokens = cache_read_tokens + ${usage.cacheReadTokens}, cache_write_tokens = cache_write_tokens + ${usage.cacheWriteTokens},
            cost_nanos = cost_nanos + ${cost}, last_activity_at = ${now.toISOString()}::timestamptz,
            context_last_input_tokens = case when ${meter}::boolean then ${usage.inputTokens}::int else context_last_input_tokens end,
            context_window = case when ${meter}::boolean then ${window}::int else context_window end
          where id = ${run.sessionId}::uuid and exists (select 1 from invocation)
          returning agent_id
        )
        select counted_session.agent_id, invocation.preset, invocation.api_key_id, counted_run.model_calls
        from invocation, counted_run, counted_session`),
    );
    if (!completed) return;
    await holdWrite(
      tx,
      addToUsageRollup(tx, {
        organizationId: run.organizationId,
        projectId: run.projectId,
        day: now.toISOString().slice(0, 10),
        agentId: completed.agent_id,
        preset: completed.preset ?? 'unknown',
        apiKeyId: completed.api_key_id,
        // A run is counted once, on the day of its first completed call.
        runs: Number(completed.model_calls) === 1 ? 1 : 0,
        usage,
        costNanos: cost,
      }),
    );
  });
}

/** Marks an attempt failed with a bounded, safe explanation (never vendor secrets). */
export async function failModelInvocation(
  ctx: ServiceContext,
  input: { runId: string; turnId: string; attempt: number; errorCode: string; errorExplanation: string; providerFinishReason: string | null },
): Promise<void> {
  await ctx.db
    .update(modelInvocations)
    .set({
      status: 'failed',
      errorCode: input.errorCode,
      errorExplanation: input.errorExplanation.slice(0, 1000),
      providerFinishReason: input.providerFinishReason?.slice(0, 200) ?? null,
      completedAt: ctx.clock.now(),
    })
    .where(
      and(
        eq(modelInvocations.runId, input.runId),
        eq(modelInvocations.turnId, input.turnId),
        eq(modelInvocations.attempt, input.attempt),
        eq(modelInvocations.status, 'started'),
      ),
    );
}
