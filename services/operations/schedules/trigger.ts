import { eq } from 'drizzle-orm';
import { schedules } from '../../../db/schema/index.ts';
import { ServiceUnavailableError } from '../../../domain/errors.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ScheduleBackend, ScheduleDeps } from '../../kernel/schedule-backend.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertMayFire } from './check-references.ts';
import { loadSchedule } from './load.ts';
import { syncSchedule } from './sync.ts';

/**
 * "Run now" (`POST /schedules/{id}/trigger`): one firing at once, through the Temporal Schedule
 * with the `allow_all` overlap policy whatever the schedule's, and even while it is paused (a
 * person asked for it). The caller must hold what a firing needs, exactly as to create or change
 * the schedule (`assertMayFire`). The firing itself is like any other: it acts as the schedule's
 * acting principal, checks its scopes, and shows in `recentFirings` once it ran (a trigger is a
 * request: the request limits count it). A Temporal Schedule not yet in line with its
 * row is brought in line first; one Temporal lost is created again. The route declares a deferred
 * transaction: the audit entry and the stored answer commit after Temporal took the trigger.
 */
export async function triggerSchedule({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: ScheduleDeps;
  input: { scheduleId: string };
}): Promise<{ id: string; triggered: true }> {
  const actor = requireActor(ctx);
  const row = await loadSchedule(ctx, { projectId: actor.projectId, scheduleId: input.scheduleId });
  assertMayFire(actor, row.target);
  const backend = deps.scheduleBackend;
  if (!backend) throw new ServiceUnavailableError('This server does not reach Temporal; a schedule cannot be triggered here');
  const sync = () => syncSchedule({ ctx: outside(ctx), deps: { scheduleBackend: backend }, input: { scheduleId: row.id } });
  if (row.temporalRevision !== row.revision && !(await sync())) throw unavailable();
  let outcome = await trigger(ctx, backend, row.id);
  if (outcome === 'missing') {
    // Temporal lost it (deleted by hand, a reset server): mark the row behind and create it again.
    await ctx.db.update(schedules).set({ temporalRevision: null }).where(eq(schedules.id, row.id));
    if (!(await sync())) throw unavailable();
    outcome = await trigger(ctx, backend, row.id);
    if (outcome === 'missing') throw unavailable();
  }
  return withTransaction(ctx, async (tx) => {
    await recordAudit(tx, { action: 'schedule.triggered', targetType: 'schedule', targetId: row.id });
    return { id: row.id, triggered: true as const };
  });
}

async function trigger(ctx: ServiceContext, backend: ScheduleBackend, scheduleId: string): Promise<'triggered' | 'missing'> {
  try {
    return await backend.trigger(scheduleId);
  } catch (error) {
    ctx.logger.warn('Temporal did not take a schedule trigger', { scheduleId, err: error, requestId: ctx.requestId });
    throw unavailable();
  }
}

const unavailable = () => new ServiceUnavailableError('Temporal did not take the trigger; try again');

/** The request's context without its deferred transaction: the sync reads and marks on the pool. */
function outside(ctx: ServiceContext): ServiceContext {
  const { transactionScope: _scope, ...rest } = ctx;
  return rest;
}
