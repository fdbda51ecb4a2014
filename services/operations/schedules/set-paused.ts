import { eq, sql } from 'drizzle-orm';
import { schedules } from '../../../db/schema/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { withFiringDetails } from './details.ts';
import { loadSchedule } from './load.ts';
import { assertMayResume, type ScheduleWriteDeps } from './minimum-interval.ts';
import type { PublicSchedule } from './public.ts';
import { syncAfterCommit } from './sync.ts';

/**
 * `POST /schedules/{id}/pause` and `/unpause`: records the pause state, then pauses or unpauses
 * the Temporal Schedule after the commit. A firing already running finishes and records its
 * result. Pausing a paused schedule (or unpausing a running one) changes nothing and answers the
 * schedule as it is. A schedule whose interval is below this server's minimum (restored, or
 * written before the minimum existed) is not unpaused (409) until a PATCH gives it a longer one.
 */
export async function setSchedulePaused({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: ScheduleWriteDeps;
  input: { scheduleId: string; paused: boolean };
}): Promise<PublicSchedule> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const current = await loadSchedule(tx, { projectId: actor.projectId, scheduleId: input.scheduleId, lock: true });
    if (!input.paused && current.paused) assertMayResume(current.intervalSeconds, deps.minIntervalSeconds);
    let row = current;
    if (current.paused !== input.paused) {
      const [changed] = await tx.db
        .update(schedules)
        .set({ paused: input.paused, revision: sql`${schedules.revision} + 1`, updatedAt: tx.clock.now() })
        .where(eq(schedules.id, current.id))
        .returning();
      row = changed!;
      await recordAudit(tx, { action: input.paused ? 'schedule.paused' : 'schedule.unpaused', targetType: 'schedule', targetId: current.id });
      syncAfterCommit(tx, deps, current.id);
    }
    const [answer] = await withFiringDetails(tx, null, [row]);
    return answer!;
  });
}
