import { and, asc, eq, inArray } from 'drizzle-orm';
import { runs, toolCalls } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import type { ToolCallStatus } from '../../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { handOffPlace, type AdmissionGate } from './admission-gate.ts';
import { transitionLockedRun } from './transition.ts';

/** The calls a waiting run waits on: approvals to decide, or caller tools to answer. */
const BLOCKING: Record<'waiting_for_tool' | 'waiting_for_approval', ToolCallStatus[]> = {
  waiting_for_approval: ['pending_approval'],
  waiting_for_tool: ['pending', 'claimed'],
};

/** `waiting: false`: no call blocks the run any more (all answered or decided since the workflow read them); it goes on. */
export type WaitingEntry = { waiting: boolean };

/**
 * Moves a run to wait for a caller tool or an approval (for the runtime), if a call still blocks
 * it: its `run.<state>` event names what it waits on (`waitingOn.toolCallIds`, oldest first, never
 * empty). The decision is taken under the run's lock with the blocking calls locked `for share`,
 * so a result or decision committing at that moment either lands first (then nothing blocks: the
 * run does not wait, `waiting: false`) or after the move (then the run is woken by it). A waiting
 * run does not count against its project's running-runs limit, so its place goes to the oldest run
 * waiting for one (`handOffPlace`). Idempotent: a run already in `state` moves nothing.
 */
export async function enterWaitingState({
  ctx,
  gate,
  input,
}: {
  ctx: ServiceContext;
  gate: AdmissionGate;
  input: { runId: string; state: 'waiting_for_tool' | 'waiting_for_approval' };
}): Promise<WaitingEntry> {
  return withTransaction(ctx, async (tx) => {
    const [run] = await tx.db.select().from(runs).where(eq(runs.id, input.runId)).for('update');
    if (!run) throw new NotFoundError('No run with that id');
    const blocking = await tx.db
      .select({ id: toolCalls.id })
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, input.runId), inArray(toolCalls.status, BLOCKING[input.state])))
      .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id))
      .for('share');
    // A settled run is refused by the move below, as before; a live one with nothing to wait on goes on.
    if (blocking.length === 0 && !isSettled(run.state)) return { waiting: false };
    await transitionLockedRun(tx, run, { to: input.state }, { waitingOn: { toolCallIds: blocking.map((call) => call.id) } });
    if (run.state === 'running') await handOffPlace(tx, gate, run);
    return { waiting: true };
  });
}
