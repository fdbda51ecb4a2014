import { and, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client.ts';
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
    // The common case in one statement: the next ordinal, if the budget has room and this turn
    // holds none yet. Nothing inserted means a replayed turn (its reservation stands) or a spent budget.
    const inserted = rowsOf<{ ordinal: number }>(
      await tx.db.execute(sql`
        insert into run_turn_reservations (run_id, turn_id, organization_id, project_id, ordinal, created_at)
        select ${input.runId}::uuid, ${input.turnId}::text, ${run.organizationId}::uuid, ${run.projectId}::uuid, (count(*) + 1)::int, ${tx.clock.now().toISOString()}::timestamptz
        from run_turn_reservations where run_id = ${input.runId}::uuid
        having count(*) < ${input.maxTurns}::int
        on conflict (run_id, turn_id) do nothing
        returning ordinal`),
    );
    if (inserted[0]) return { reserved: true as const, ordinal: Number(inserted[0].ordinal) };
    const [existing] = await tx.db
      .select({ ordinal: runTurnReservations.ordinal })
      .from(runTurnReservations)
      .where(and(eq(runTurnReservations.runId, input.runId), eq(runTurnReservations.turnId, input.turnId)));
    return existing ? { reserved: true as const, ordinal: existing.ordinal } : { reserved: false as const };
  });
}
