import { eq, sql } from 'drizzle-orm';
import { schedules } from '../../../db/schema/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ScheduleDeps } from '../../kernel/schedule-backend.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { loadSchedule } from './load.ts';
import { syncAfterCommit } from './sync.ts';

/**
 * Deletes a schedule (`DELETE /schedules/{id}`): the row is marked deleted (its firings stay
 * readable in the audit sense, not through the API), then its Temporal Schedule is deleted after
 * the commit (or by the reconciler). A firing already running finishes and records its result;
 * one that starts later finds the schedule gone and makes nothing. Deleting again is a 404.
 */
export async function deleteSchedule({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: ScheduleDeps;
  input: { scheduleId: string };
}): Promise<{ id: string; deleted: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const current = await loadSchedule(tx, { projectId: actor.projectId, scheduleId: input.scheduleId, lock: true });
    const now = tx.clock.now();
    await tx.db
      .update(schedules)
      .set({ deletedAt: now, revision: sql`${schedules.revision} + 1`, updatedAt: now })
      .where(eq(schedules.id, current.id));
    await recordAudit(tx, { action: 'schedule.deleted', targetType: 'schedule', targetId: current.id });
    syncAfterCommit(tx, deps, current.id);
    return { id: current.id, deleted: true as const };
  });
}
