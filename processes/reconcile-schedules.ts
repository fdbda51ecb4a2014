import { and, asc, lt, sql } from 'drizzle-orm';
import { schedules } from '../db/schema/index.ts';
import type { ScheduleBackend } from '../services/kernel/schedule-backend.ts';
import { syncSchedule } from '../services/operations/schedules/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import { repeatTicks } from './repeat-ticks.ts';

/**
 * A schedule is reconciled once its row has been behind its Temporal Schedule this long: the API
 * process syncs right after its commit, so a row still behind lost that sync (Temporal was
 * unreachable, the process died) unless the sync is under way.
 */
export const SCHEDULE_RECONCILE_AFTER_MS = 2_000;
/** How often the worker looks for such rows. */
export const SCHEDULE_RECONCILE_INTERVAL_MS = 5_000;

/**
 * Brings every schedule whose Temporal Schedule is behind its row in line (created, changed,
 * paused or deleted: services/operations/schedules/sync.ts), oldest change first. Syncing is idempotent, so
 * a sync the API is doing at the same time changes nothing. Returns how many are in line now.
 */
export async function reconcileSchedules(ctx: ServiceContext, backend: ScheduleBackend, options: { limit?: number } = {}): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - SCHEDULE_RECONCILE_AFTER_MS);
  const behind = await ctx.db
    .select({ id: schedules.id })
    .from(schedules)
    .where(and(sql`${schedules.temporalRevision} is distinct from ${schedules.revision}`, lt(schedules.updatedAt, cutoff)))
    .orderBy(asc(schedules.updatedAt))
    .limit(options.limit ?? 100);
  let synced = 0;
  for (const { id } of behind) if (await syncSchedule({ ctx, deps: { scheduleBackend: backend }, input: { scheduleId: id } })) synced += 1;
  return synced;
}

/** Runs `reconcileSchedules` every `intervalMs` until stopped (in the worker process). */
export function startScheduleReconciler(ctx: ServiceContext, backend: ScheduleBackend, intervalMs = SCHEDULE_RECONCILE_INTERVAL_MS): { stop(): Promise<void> } {
  return repeatTicks(0, async () => {
    try {
      await reconcileSchedules(ctx, backend);
    } catch (error) {
      ctx.logger.error('schedule reconciler failed', { err: error });
    }
    return intervalMs;
  });
}
