import type { RunState } from '../../../domain/runs/states.ts';
import type { AdmissionGate } from '../runs/index.ts';
import { lockTurnAnswer, settleLockedRun, writeTurnAnswer } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { holdNotice } from '../../kernel/pending-writes.ts';
import { finishModelTurn, type CommitNotice, type ModelTurnOutcome } from './finish.ts';

/**
 * A main-thread turn's final reply (no tool calls) that ends its run: `finishModelTurn` and the
 * run's `completed` settlement (`settleRun`, with everything it does: open tool calls cancelled,
 * the session's next pending turn handed off, waiting runs woken) in one transaction, so the run
 * workflow needs no settlement step of its own (issue 33). Returns the state the run settled in:
 * a run settled meanwhile (cancelled, timed out) keeps that state, as `settleRun` does.
 *
 * The common case (the run still running, the attempt not yet recorded, no open tool call) is
 * four statements: begin, the locking read, one write of every row and both events that also
 * reads what to hand off, and the commit (runs/turn-answer.ts; docs/decisions/cost-per-run.md).
 * Anything else takes the general path with the locks that read took.
 */
export async function finishFinalTurn({
  ctx,
  gate,
  input,
}: {
  ctx: ServiceContext;
  gate: AdmissionGate;
  input: { runId: string; turnId: string; attempt: number; outcome: Extract<ModelTurnOutcome, { kind: 'succeeded' }>; commitNotices?: CommitNotice[] };
}): Promise<RunState> {
  // Its hand-offs start and wake runs after its commit; inside a caller's transaction they would
  // go out before the rows they point at are committed.
  if (ctx.inTransaction) throw new Error('finishFinalTurn opens its own transaction; call it outside one');
  const { runId, turnId, attempt } = input;
  return withTransaction(ctx, async (tx) => {
    for (const notice of input.commitNotices ?? []) await holdNotice(tx, notice);
    // The run's lock first (the runtime's order), then the reply, then the settlement.
    const locked = await lockTurnAnswer(tx, { runId, turnId, attempt });
    if (locked.quick && !locked.openToolCalls) {
      await writeTurnAnswer(tx, locked, input, gate);
      return 'completed';
    }
    return settleLockedRun(tx, gate, locked.run, { runId, state: 'completed', failure: null, invocationFailed: false }, (inner, run) =>
      // The notices are held in this transaction already.
      finishModelTurn({ ctx: inner, input: { ...input, commitNotices: [] }, run }),
    );
  });
}
