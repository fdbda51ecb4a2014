import { and, count, eq } from 'drizzle-orm';
import { runs, runTurnReservations } from '../../db/schema/index.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';

/**
 * Reserves one unit of the run's turn budget for `turnId` before the provider is called (spec 3
 * "Budget rules"). Durable and idempotent: replaying a turn id reuses its reservation, so worker
 * recovery and provider retries reserve nothing more. The run row is locked so parallel calls
 * share the budget exactly.
 */
export async function reserveModelTurn(
  ctx: ServiceContext,
  input: { runId: string; turnId: string; maxTurns: number },
): Promise<{ reserved: true; ordinal: number } | { reserved: false }> {
  return withTransaction(ctx, async (tx) => {
    const [run] = await tx.db.select({ organizationId: runs.organizationId, projectId: runs.projectId }).from(runs).where(eq(runs.id, input.runId)).for('update');
    if (!run) throw new NotFoundError('No run with that id');
    const [existing] = await tx.db
      .select({ ordinal: runTurnReservations.ordinal })
      .from(runTurnReservations)
      .where(and(eq(runTurnReservations.runId, input.runId), eq(runTurnReservations.turnId, input.turnId)));
    if (existing) return { reserved: true as const, ordinal: existing.ordinal };
    const [used] = await tx.db.select({ value: count() }).from(runTurnReservations).where(eq(runTurnReservations.runId, input.runId));
    const ordinal = (used?.value ?? 0) + 1;
    if (ordinal > input.maxTurns) return { reserved: false as const };
    await tx.db.insert(runTurnReservations).values({ runId: input.runId, turnId: input.turnId, organizationId: run.organizationId, projectId: run.projectId, ordinal, createdAt: tx.clock.now() });
    return { reserved: true as const, ordinal };
  });
}
