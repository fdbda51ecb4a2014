import { eq } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { mainTurnNumber } from '../../../domain/runs/message-deltas.ts';
import { turnMessageEventId } from '../../../domain/runs/turn-message-event-id.ts';
import { completeModelInvocation, failModelInvocation } from '../model-invocations/index.ts';
import { appendRunMessage, lockTurnAnswer, writeTurnAnswer, type SucceededTurn } from '../runs/index.ts';
import { threadOfTurn } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { holdNotice } from '../../kernel/pending-writes.ts';

/** A NOTIFY the turn's transaction carries to its commit (`holdNotice`). */
export type CommitNotice = { channel: string; payload: string };

/** What both steps of a turn's finish need of its run. */
type RunIdentity = { id: string; organizationId: string; projectId: string; sessionId: string; threadId: string };

export type ModelTurnOutcome =
  ({ kind: 'succeeded' } & SucceededTurn) | { kind: 'failed'; errorCode: string; errorExplanation: string; providerFinishReason: string | null };

/**
 * The second half of one model attempt (for the runtime): a success completes the attempt
 * (its usage added to the session's counters) and appends the turn's assistant message, keyed
 * by the turn id, in one transaction; a failure is recorded on the attempt with a bounded, safe
 * explanation. A main-thread turn's `message.created` carries the id `turnMessageEventId` derives
 * from run and turn, so live output can name it before the message commits. Idempotent: a replay
 * completes nothing twice and appends no second message (nor event). 404 when the run is gone.
 */
export async function finishModelTurn({
  ctx,
  input,
  run: lockedRun,
}: {
  ctx: ServiceContext;
  /** `commitNotices`: NOTIFYs delivered with this commit (live output's last text and the turn's end). */
  input: { runId: string; turnId: string; attempt: number; outcome: ModelTurnOutcome; commitNotices?: CommitNotice[] };
  /** The run's row when the caller has it already (read under its lock, in `ctx`'s transaction). */
  run?: RunIdentity;
}): Promise<void> {
  const { runId, turnId, attempt, outcome } = input;
  if (outcome.kind === 'failed') {
    await failModelInvocation(ctx, {
      runId,
      turnId,
      attempt,
      errorCode: outcome.errorCode,
      errorExplanation: outcome.errorExplanation,
      providerFinishReason: outcome.providerFinishReason,
    });
    return;
  }
  await withTransaction(ctx, async (tx) => {
    for (const notice of input.commitNotices ?? []) await holdNotice(tx, notice);
    // A main-thread answer recorded on its own: the common case in one write (runs/turn-answer.ts).
    if (!lockedRun && mainTurnNumber(turnId) !== null) {
      const locked = await lockTurnAnswer(tx, { runId, turnId, attempt });
      if (locked.quick) return writeTurnAnswer(tx, locked, { runId, turnId, attempt, outcome }, null);
    }
    // Read once for both steps below.
    const [run] = lockedRun
      ? [lockedRun]
      : await tx.db
          .select({ id: runs.id, organizationId: runs.organizationId, projectId: runs.projectId, sessionId: runs.sessionId, threadId: runs.threadId })
          .from(runs)
          .where(eq(runs.id, runId));
    if (!run) throw new NotFoundError('No run with that id');
    const threadId = await threadOfTurn(tx.db, turnId);
    const turn = threadId ? null : mainTurnNumber(turnId);
    await completeModelInvocation(
      tx,
      {
        runId,
        turnId,
        attempt,
        usage: outcome.usage,
        prices: outcome.prices,
        finishReason: outcome.finishReason,
        providerFinishReason: outcome.providerFinishReason,
        thinking: outcome.thinking,
        context: { window: outcome.contextWindow ?? null, meter: turn !== null },
      },
      run,
    );
    const content = { text: outcome.text, toolCalls: outcome.toolCalls, replay: outcome.replay ?? null };
    await appendRunMessage(
      tx,
      {
        runId,
        stepKey: turnId,
        role: 'assistant',
        content,
        // A vendor that reports no usage leaves the last count standing (the estimate covers the rest).
        ...(outcome.usage.inputTokens > 0 ? { contextTokens: outcome.usage.inputTokens + outcome.usage.outputTokens } : {}),
        ...(threadId ? { threadId } : {}),
        ...(turn === null ? {} : { eventId: turnMessageEventId(runId, turn) }),
      },
      run,
    );
  });
}
