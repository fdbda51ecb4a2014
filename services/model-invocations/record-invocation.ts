import { and, eq, sql } from 'drizzle-orm';
import { modelInvocations, runs, sessions } from '../../db/schema/index.ts';
import { EVENT_KINDS } from '../../domain/runs/events.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { RunRow } from '../runs/public.ts';
import type { ServiceContext } from '../service-context.ts';
import { appendProductEvent } from '../events/append.ts';
import { withTransaction } from '../transaction.ts';

export type InvocationUsage = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };

/** The run's ids an invocation row and its events carry. */
export type InvocationRun = Pick<RunRow, 'id' | 'organizationId' | 'projectId' | 'sessionId'>;

/** `known`: the run as the caller already read it (ids never change), saving a read. */
async function runOf(ctx: ServiceContext, runId: string, known?: InvocationRun): Promise<InvocationRun> {
  if (known) {
    if (known.id !== runId) throw new Error('the run given is not the invocation\'s run');
    return known;
  }
  const [run] = await ctx.db.select({ id: runs.id, organizationId: runs.organizationId, projectId: runs.projectId, sessionId: runs.sessionId }).from(runs).where(eq(runs.id, runId));
  if (!run) throw new NotFoundError('No run with that id');
  return run;
}

/**
 * Records that attempt `attempt` of turn `turnId` is starting. The "model call started" event is
 * written once per turn — on the turn's first attempt row — so a replayed activity never
 * duplicates it.
 */
export async function startModelInvocation(ctx: ServiceContext, input: { runId: string; turnId: string; attempt: number }, known?: InvocationRun): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const run = await runOf(tx, input.runId, known);
    const inserted = await tx.db
      .insert(modelInvocations)
      .values({ organizationId: run.organizationId, projectId: run.projectId, runId: run.id, turnId: input.turnId, attempt: input.attempt, status: 'started', startedAt: tx.clock.now() })
      .onConflictDoNothing()
      .returning({ id: modelInvocations.id });
    if (inserted.length === 1 && input.attempt === 1) {
      await appendProductEvent(tx, {
        organizationId: run.organizationId,
        projectId: run.projectId,
        aggregateType: 'run',
        aggregateId: run.id,
        kind: EVENT_KINDS.modelCallStarted,
        publicPayload: { runId: run.id, sessionId: run.sessionId, turnId: input.turnId },
      });
    }
  });
}

/**
 * Completes an attempt with its usage and adds the usage to the session's counters in the same
 * transaction, once: only a row still `started` is completed (a replay changes nothing).
 */
export async function completeModelInvocation(
  ctx: ServiceContext,
  input: { runId: string; turnId: string; attempt: number; usage: InvocationUsage; finishReason: string; providerFinishReason: string | null; thinking: string | null },
  known?: InvocationRun,
): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const run = await runOf(tx, input.runId, known);
    const completed = await tx.db
      .update(modelInvocations)
      .set({
        status: 'succeeded',
        ...input.usage,
        finishReason: input.finishReason,
        providerFinishReason: input.providerFinishReason,
        thinking: input.thinking,
        completedAt: tx.clock.now(),
      })
      .where(and(eq(modelInvocations.runId, run.id), eq(modelInvocations.turnId, input.turnId), eq(modelInvocations.attempt, input.attempt), eq(modelInvocations.status, 'started')))
      .returning({ id: modelInvocations.id });
    if (completed.length === 0) return;
    await tx.db
      .update(sessions)
      .set({
        inputTokens: sql`${sessions.inputTokens} + ${input.usage.inputTokens}`,
        outputTokens: sql`${sessions.outputTokens} + ${input.usage.outputTokens}`,
        cacheReadTokens: sql`${sessions.cacheReadTokens} + ${input.usage.cacheReadTokens}`,
        cacheWriteTokens: sql`${sessions.cacheWriteTokens} + ${input.usage.cacheWriteTokens}`,
        lastActivityAt: tx.clock.now(),
      })
      .where(eq(sessions.id, run.sessionId));
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
    .where(and(eq(modelInvocations.runId, input.runId), eq(modelInvocations.turnId, input.turnId), eq(modelInvocations.attempt, input.attempt), eq(modelInvocations.status, 'started')));
}
