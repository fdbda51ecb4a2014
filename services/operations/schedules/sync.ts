import { and, eq } from 'drizzle-orm';
import { schedules } from '../../../db/schema/index.ts';
import type { ScheduleBackend, ScheduleDeps } from '../../kernel/schedule-backend.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { projectionOf } from './public.ts';

/** A write that a later change overtook is redone with the newer row this many times, then left to the reconciler. */
const MAX_PASSES = 3;

/**
 * Brings one schedule's Temporal Schedule in line with its row (docs/decisions/schedule-temporal-projection.md):
 * created or updated to the row's timing, policies and pause state, or deleted when the row is.
 * Each pass reads the row, writes it whole to Temporal, then marks `temporalRevision` only if the
 * row's revision is still the one written. A pass that a change overtook is redone with the newer
 * row, written again whatever its mark says (this pass's write may have undone a newer one that
 * another writer had already marked): whoever writes to Temporal last also checks last. Never
 * throws on a Temporal failure; the row stays behind and the worker's reconciler tries again.
 * Returns whether it is in step.
 */
export async function syncSchedule({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { scheduleBackend: ScheduleBackend };
  input: { scheduleId: string };
}): Promise<boolean> {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const [row] = await ctx.db.select().from(schedules).where(eq(schedules.id, input.scheduleId));
    // Gone with its project (a cascade): its Temporal Schedule is removed by its next firing.
    if (!row) return true;
    if (pass === 0 && row.temporalRevision === row.revision) return true;
    try {
      if (row.deletedAt) await deps.scheduleBackend.remove(row.id);
      else await deps.scheduleBackend.apply(projectionOf(row));
    } catch (error) {
      ctx.logger.warn('could not bring a Temporal Schedule in line with its schedule; the reconciler will retry', {
        scheduleId: row.id,
        err: error,
        requestId: ctx.requestId,
      });
      return false;
    }
    const marked = await ctx.db
      .update(schedules)
      .set({ temporalRevision: row.revision })
      .where(and(eq(schedules.id, row.id), eq(schedules.revision, row.revision)))
      .returning({ id: schedules.id });
    if (marked.length > 0) return true;
  }
  // Still overtaken: whatever mark the row holds may predate this process's last write.
  await ctx.db.update(schedules).set({ temporalRevision: null }).where(eq(schedules.id, input.scheduleId));
  return false;
}

/**
 * Queues `syncSchedule` for after the caller's transaction commits (the row exists first, as
 * for runs), on the pool rather than the finished transaction; without a backend in this
 * process the worker's reconciler does it.
 */
export function syncAfterCommit(tx: ServiceContext, deps: ScheduleDeps, scheduleId: string): void {
  const backend = deps.scheduleBackend;
  if (!backend) return;
  const ctx: ServiceContext = {
    db: deps.database,
    inTransaction: false,
    afterCommit: [],
    actor: tx.actor,
    requestId: tx.requestId,
    logger: tx.logger,
    clock: tx.clock,
  };
  tx.afterCommit.push(async () => {
    await syncSchedule({ ctx, deps: { scheduleBackend: backend }, input: { scheduleId } });
  });
}
