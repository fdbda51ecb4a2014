import { randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { agentVersions, messages, modelInvocations, runs, sessions, threads, toolCalls } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { mainTurnNumber } from '../../../domain/runs/message-deltas.ts';
import { turnMessageEventId } from '../../../domain/runs/turn-message-event-id.ts';
import { toolCallStatusesInto } from '../../../domain/tool-calls/transitions.ts';
import { costNanos, type TokenUsage } from '../../../domain/usage/cost.ts';
import type { ModelPrices } from '../../../domain/usage/prices.ts';
import type { ModelToolCall } from '../../../domain/runs/transcript.ts';
import { appendProductEvents, appendProductEventsReading } from '../../kernel/events/index.ts';
import { countRunMoved } from '../../kernel/metrics/index.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { addToUsageRollup } from '../../kernel/usage/index.ts';
import { handOffPlace, type AdmissionGate } from './admission-gate.ts';
import { checkRunMessage } from './append-message.ts';
import { handOffPendingTurn } from './hand-off-pending-turn.ts';
import { insertThreadMessage, messageCreatedEvent } from './insert-message.ts';
import type { RunRow } from './public.ts';
import { runMovedEvent } from './transition.ts';

/**
 * A model attempt that succeeded, as its adapter answered (model-turns/finish.ts's
 * `ModelTurnOutcome` of kind `succeeded`): recorded by the verbs one by one or in one write here.
 */
export type SucceededTurn = {
  text: string;
  toolCalls: ModelToolCall[];
  /** Opaque vendor state the next request of the same model needs back (never shown). */
  replay: unknown;
  usage: TokenUsage;
  /** The preset's prices when the call began (null: unpriced), which its cost is figured at. */
  prices: ModelPrices | null;
  finishReason: string;
  providerFinishReason: string | null;
  thinking: string | null;
  /** The model's context window when known (the context meter's scale). */
  contextWindow?: number | null;
};

/** What the locking read found: `quick` when the answer is the common case the one write covers. */
export type LockedTurnAnswer = { run: RunRow; quick: QuickFacts | null; openToolCalls: boolean };

type QuickFacts = {
  lastSequence: number;
  sessionAgentId: string;
  /** The version's agent: the settled-runs metric's label (as `settlingRunAgentId`). */
  versionAgentId: string;
  preset: string | null;
  apiKeyId: string | null;
};

/**
 * The first statement of recording a model turn's answer (finish.ts, finish-final.ts): the run,
 * its session and its thread locked in the runtime's order (run, session, thread — as the verbs
 * that write them one by one take them), with everything that decides whether the answer is the
 * common case: the run still running, a main-thread turn whose attempt is still `started`, no
 * message of that turn yet (and for a final reply, no open tool call). Anything else gets `quick:
 * null`, and the caller records it through the general verbs with the locks it holds.
 */
export async function lockTurnAnswer(tx: ServiceContext, input: { runId: string; turnId: string; attempt: number }): Promise<LockedTurnAnswer> {
  const [row] = await tx.db
    .select({
      run: runs,
      lastSequence: threads.lastMessageSequence,
      threadProjectId: threads.projectId,
      sessionAgentId: sessions.agentId,
      versionAgentId: agentVersions.agentId,
      invocationStatus: modelInvocations.status,
      preset: modelInvocations.preset,
      apiKeyId: modelInvocations.apiKeyId,
      replayed: sql<boolean>`exists (select 1 from ${messages} m where m.thread_id = ${runs.threadId} and m.run_id = ${runs.id} and m.step_key = ${input.turnId})`,
      openToolCalls: sql<boolean>`exists (select 1 from ${toolCalls} tc where tc.run_id = ${runs.id} and ${inArray(sql`tc.status`, toolCallStatusesInto('cancelled'))})`,
    })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .innerJoin(threads, eq(threads.id, runs.threadId))
    .innerJoin(agentVersions, eq(agentVersions.id, runs.agentVersionId))
    .leftJoin(
      modelInvocations,
      and(eq(modelInvocations.runId, runs.id), eq(modelInvocations.turnId, input.turnId), eq(modelInvocations.attempt, input.attempt)),
    )
    .where(eq(runs.id, input.runId))
    .for('update', { of: [runs, sessions, threads] });
  if (!row) throw new NotFoundError('No run with that id');
  const quick =
    row.run.state === 'running' &&
    mainTurnNumber(input.turnId) !== null &&
    row.invocationStatus === 'started' &&
    !row.replayed &&
    row.threadProjectId === row.run.projectId &&
    row.sessionAgentId !== null;
  return {
    run: row.run,
    openToolCalls: row.openToolCalls,
    quick: quick
      ? { lastSequence: row.lastSequence, sessionAgentId: row.sessionAgentId!, versionAgentId: row.versionAgentId, preset: row.preset, apiKeyId: row.apiKeyId }
      : null,
  };
}

/**
 * The common case of a turn's answer after `lockTurnAnswer`, in one statement: the attempt
 * completed with its usage and cost, the run's and the session's counters and context meter, the
 * assistant message at the thread's next sequence with its `message.created` (the id live output
 * named), the day's usage rollup, and for a final reply (`settleWith`) the run settled `completed`
 * with its session's status and `run.completed` — the same rows and events
 * `completeModelInvocation`, `appendRunMessage` and `transitionLockedRun` write one by one. The
 * rows are locked already, so each value is computed here from what the lock read, and the writes
 * ride as CTEs of the events' append (`holdWrite`), which for a final reply also reads what to
 * hand off (the session's pending turn, a run waiting for the freed place), each then handed off
 * as `settleLockedRun` hands them.
 */
export async function writeTurnAnswer(
  tx: ServiceContext,
  locked: LockedTurnAnswer,
  answer: { runId: string; turnId: string; attempt: number; outcome: SucceededTurn },
  /** The gate of a final reply, which settles the run; null for a turn that goes on (tool calls). */
  settleWith: AdmissionGate | null,
): Promise<void> {
  const { run, quick } = locked;
  if (!quick) throw new Error('writeTurnAnswer needs the common case lockTurnAnswer found');
  if (settleWith && locked.openToolCalls) throw new Error('a final reply settles in one write only without open tool calls');
  const settles = settleWith !== null;
  const reply = { ...answer.outcome, turnId: answer.turnId, attempt: answer.attempt };
  const turn = mainTurnNumber(reply.turnId)!;
  const content = { text: reply.text, toolCalls: reply.toolCalls, replay: reply.replay ?? null };
  checkRunMessage({ stepKey: reply.turnId, role: 'assistant', content });
  const now = tx.clock.now();
  const { usage } = reply;
  const cost = costNanos(usage, reply.prices);
  const window = reply.contextWindow ?? null;
  const sequence = quick.lastSequence + 1;

  await holdWrite(
    tx,
    tx.db
      .update(modelInvocations)
      .set({
        status: 'succeeded',
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheReadTokens: usage.cacheReadTokens,
        cacheWriteTokens: usage.cacheWriteTokens,
        costNanos: cost,
        finishReason: reply.finishReason,
        providerFinishReason: reply.providerFinishReason,
        thinking: reply.thinking,
        contextWindow: window,
        completedAt: now,
      })
      .where(
        and(
          eq(modelInvocations.runId, run.id),
          eq(modelInvocations.turnId, reply.turnId),
          eq(modelInvocations.attempt, reply.attempt),
          eq(modelInvocations.status, 'started'),
        ),
      ),
  );
  const updated: RunRow = {
    ...run,
    modelCalls: run.modelCalls + 1,
    inputTokens: run.inputTokens + usage.inputTokens,
    outputTokens: run.outputTokens + usage.outputTokens,
    cacheReadTokens: run.cacheReadTokens + usage.cacheReadTokens,
    cacheWriteTokens: run.cacheWriteTokens + usage.cacheWriteTokens,
    costNanos: run.costNanos + cost,
    contextLastInputTokens: usage.inputTokens,
    contextWindow: window,
    ...(settles ? { state: 'completed' as const, failure: null, settledAt: now, updatedAt: now } : {}),
  };
  await holdWrite(
    tx,
    tx.db
      .update(runs)
      .set({
        modelCalls: sql`${runs.modelCalls} + 1`,
        inputTokens: sql`${runs.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${runs.outputTokens} + ${usage.outputTokens}`,
        cacheReadTokens: sql`${runs.cacheReadTokens} + ${usage.cacheReadTokens}`,
        cacheWriteTokens: sql`${runs.cacheWriteTokens} + ${usage.cacheWriteTokens}`,
        costNanos: sql`${runs.costNanos} + ${cost}`,
        contextLastInputTokens: usage.inputTokens,
        contextWindow: window,
        ...(settles ? { state: 'completed' as const, failure: null, settledAt: now, updatedAt: now } : {}),
      })
      .where(eq(runs.id, run.id)),
  );
  await holdWrite(
    tx,
    tx.db
      .update(sessions)
      .set({
        inputTokens: sql`${sessions.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${sessions.outputTokens} + ${usage.outputTokens}`,
        cacheReadTokens: sql`${sessions.cacheReadTokens} + ${usage.cacheReadTokens}`,
        cacheWriteTokens: sql`${sessions.cacheWriteTokens} + ${usage.cacheWriteTokens}`,
        costNanos: sql`${sessions.costNanos} + ${cost}`,
        contextLastInputTokens: usage.inputTokens,
        contextWindow: window,
        lastActivityAt: now,
        // The session mirrors its latest run only.
        ...(settles ? { status: sql`case when ${sessions.latestRunId} = ${run.id}::uuid then 'completed' else ${sessions.status} end` } : {}),
      })
      .where(eq(sessions.id, run.sessionId)),
  );
  // A vendor that reports no usage leaves the thread's last count standing (insertThreadMessage).
  await holdWrite(
    tx,
    tx.db
      .update(threads)
      .set({
        lastMessageSequence: sequence,
        ...(usage.inputTokens > 0 ? { contextTokens: usage.inputTokens + usage.outputTokens, contextThroughSequence: sequence } : {}),
      })
      .where(eq(threads.id, run.threadId)),
  );
  const message = await insertThreadMessage(tx, {
    organizationId: run.organizationId,
    projectId: run.projectId,
    threadId: run.threadId,
    runId: run.id,
    stepKey: reply.turnId,
    role: 'assistant',
    content,
    at: now,
    reservedSequence: sequence,
    id: randomUUID(),
    held: true,
  });
  await holdWrite(
    tx,
    addToUsageRollup(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      day: now.toISOString().slice(0, 10),
      agentId: quick.sessionAgentId,
      preset: quick.preset ?? 'unknown',
      apiKeyId: quick.apiKeyId,
      // A run is counted once, on the day of its first completed call.
      runs: updated.modelCalls === 1 ? 1 : 0,
      usage,
      costNanos: cost,
    }),
  );
  const messageEvent = { ...messageCreatedEvent(message, run.sessionId), id: turnMessageEventId(run.id, turn) };
  if (!settles) {
    await appendProductEvents(tx, { organizationId: run.organizationId, projectId: run.projectId, events: [messageEvent] });
    return;
  }
  const { organizationId, projectId, ...completedEvent } = runMovedEvent(run, updated, null);
  // What to hand off, read by the write itself: its snapshot is taken after the locking read's
  // locks were granted, so a pending turn committed while that read waited for the session is seen.
  const handOffs = sql`(select json_build_object(
      'pending', exists (
        select 1 from pending_turns pt join sessions s on s.id = pt.session_id
        where pt.session_id = ${run.sessionId}::uuid and pt.state = 'pending' and s.latest_run_id = ${run.id}::uuid),
      'waiting', ${Boolean(settleWith.runningRunsLimit)}::boolean and exists (
        select 1 from runs r
        where r.project_id = ${run.projectId}::uuid and r.state = 'queued' and r.admission_deferred_at is not null
          and r.cancellation_requested_at is null and r.wall_deadline_at > ${now.toISOString()}::timestamptz)))`;
  const { probe: after } = await appendProductEventsReading<{ pending: boolean; waiting: boolean }>(
    tx,
    { organizationId, projectId, events: [messageEvent, completedEvent] },
    handOffs,
  );
  countRunMoved(tx, run, 'completed', now, quick.versionAgentId);
  if (after?.waiting) await handOffPlace(tx, settleWith, run);
  if (after?.pending) await handOffPendingTurn(tx, settleWith, updated);
}
