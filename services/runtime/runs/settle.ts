import { eq } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { isSettled, type RunState, type SettledRunState } from '../../../domain/runs/states.ts';
import type { RunFailure } from '../../../domain/sessions/run-failure.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { cancelOpenToolCalls } from '../tool-calls/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { handOffPlace, type AdmissionGate } from './admission-gate.ts';
import { handOffPendingTurn } from './hand-off-pending-turn.ts';
import type { RunRow } from './public.ts';
import { transitionLockedRun } from './transition.ts';

export type SettleRunInput = {
  runId: string;
  state: SettledRunState;
  failure: RunFailure | null;
  /** The run failed because a model invocation did: `model.invocation_failed` is written too. */
  invocationFailed: boolean;
};

/**
 * Settles a run exactly once (for the runtime): its open tool calls are cancelled, the run moves
 * to `state` with its failure, and a failed model invocation gets its `model.invocation_failed`
 * event, all in one transaction, with the hand-off of the session's oldest pending turn (it
 * becomes the next run); a run that was executing hands its place in the project's running-runs
 * limit to the oldest run waiting for one (`handOffPlace`), in the same transaction. Idempotent:
 * a settled run keeps the state it settled in, which is returned. 404 when the run is gone.
 */
export async function settleRun({
  ctx,
  gate,
  input,
  first,
}: {
  ctx: ServiceContext;
  gate: AdmissionGate;
  input: SettleRunInput;
  /**
   * Written first in the same transaction, under the run's lock, even when the run is settled
   * already (finish-final.ts); it gets the locked row, so it need not read the run again.
   */
  first?: (tx: ServiceContext, run: RunRow) => Promise<void>;
}): Promise<RunState> {
  // Its hand-offs start and wake runs after its commit; inside a caller's transaction they would
  // go out before the rows they point at are committed.
  if (ctx.inTransaction) throw new Error('settleRun opens its own transaction; call it outside one');
  return withTransaction(ctx, async (tx) => {
    const [run] = await tx.db.select().from(runs).where(eq(runs.id, input.runId)).for('update');
    if (!run) throw new NotFoundError('No run with that id');
    return settleLockedRun(tx, gate, run, input, first);
  });
}

/**
 * `settleRun`'s work for a caller that has locked the run in `tx` (a transaction it owns and
 * commits: the hand-offs start and wake runs after that commit).
 */
export async function settleLockedRun(
  tx: ServiceContext,
  gate: AdmissionGate,
  run: RunRow,
  input: SettleRunInput,
  first?: (tx: ServiceContext, run: RunRow) => Promise<void>,
): Promise<RunState> {
  await first?.(tx, run);
  if (isSettled(run.state)) return run.state;
  if (input.invocationFailed && input.failure) {
    await appendProductEvent(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      aggregateType: 'run',
      aggregateId: run.id,
      kind: EVENT_KINDS.modelInvocationFailed,
      publicPayload: { runId: run.id, sessionId: run.sessionId, errorCode: input.failure.errorCode, errorExplanation: input.failure.errorExplanation },
    });
  }
  await cancelOpenToolCalls(tx, { runId: run.id });
  const settled = await transitionLockedRun(tx, run, { to: input.state, failure: input.failure });
  // Its place in the project's running-runs limit goes to the oldest run waiting for one.
  if (run.state === 'running') await handOffPlace(tx, gate, run);
  // The session's oldest pending turn becomes its next run in this same transaction.
  await handOffPendingTurn(tx, gate, settled);
  return settled.state;
}
