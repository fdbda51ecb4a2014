import { and, eq } from 'drizzle-orm';
import { pendingTurns, runs, scheduleFirings } from '../../../db/schema/index.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/**
 * Whether what a firing made has settled (the firing workflow polls it, so that the overlap
 * policy sees the firing running until then): its run settled, or its pending turn withdrawn.
 * A pending turn that became a run is followed to that run, whose id is recorded on the firing
 * as it is seen. A firing that made nothing, or whose run is gone, counts as settled.
 */
export async function firingSettled({ ctx, input }: { ctx: ServiceContext; input: { scheduleId: string; firingKey: string } }): Promise<boolean> {
  const [firing] = await ctx.db
    .select()
    .from(scheduleFirings)
    .where(and(eq(scheduleFirings.scheduleId, input.scheduleId), eq(scheduleFirings.firingKey, input.firingKey)));
  if (!firing) return true;
  let runId = firing.runId;
  if (!runId && firing.pendingTurnId) {
    const [turn] = await ctx.db
      .select({ state: pendingTurns.state, runId: pendingTurns.runId })
      .from(pendingTurns)
      .where(eq(pendingTurns.id, firing.pendingTurnId));
    if (!turn || turn.state === 'withdrawn') return true;
    if (!turn.runId) return false;
    runId = turn.runId;
    await ctx.db.update(scheduleFirings).set({ runId }).where(eq(scheduleFirings.id, firing.id));
  }
  if (!runId) return true;
  const [run] = await ctx.db.select({ state: runs.state }).from(runs).where(eq(runs.id, runId));
  return !run || isSettled(run.state);
}
