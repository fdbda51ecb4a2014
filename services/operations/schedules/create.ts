import { and, count, eq, isNull } from 'drizzle-orm';
import * as v from 'valibot';
import { projects, schedules } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { CreateScheduleInput, DEFAULT_CATCHUP_WINDOW_SECONDS, MAX_SCHEDULES_PER_PROJECT, storedMemoryStores } from '../../../domain/schedules/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { checkScheduleReferences } from './check-references.ts';
import { assertMinimumInterval, type ScheduleWriteDeps } from './minimum-interval.ts';
import { toScheduleResponse, type PublicSchedule } from './public.ts';
import { syncAfterCommit } from './sync.ts';

/**
 * Creates a schedule (`POST /schedules`): the row, whose firings act as the caller (its creator
 * and first acting principal), and after the commit its Temporal Schedule, created from the row
 * (services/operations/schedules/sync.ts; the worker's reconciler creates it if this process cannot). The
 * caller must hold what each firing needs (check-references.ts), and an interval must be at least
 * this server's minimum. The answer shows no next firings yet: the Temporal Schedule is created
 * after it is written.
 */
export async function createSchedule({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: ScheduleWriteDeps;
  input: v.InferInput<typeof CreateScheduleInput>;
}): Promise<PublicSchedule> {
  const actor = requireActor(ctx);
  const body = v.parse(CreateScheduleInput, input);
  assertMinimumInterval(body.intervalSeconds ?? null, deps.minIntervalSeconds);
  const target = body.target ?? 'new_session';
  const draft = {
    agentId: body.agentId ?? null,
    agentVersionId: body.agentVersionId ?? null,
    target,
    sessionId: body.sessionId ?? null,
    ifBusy: target === 'session' ? (body.ifBusy ?? 'enqueue') : null,
    files: body.files ?? [],
    memoryStores: storedMemoryStores(body.memoryStores),
  };
  return withTransaction(ctx, async (tx) => {
    // The project row lock serializes creations, so two requests cannot both take the last place.
    await tx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, actor.projectId)).for('update');
    const [live] = await tx.db
      .select({ total: count() })
      .from(schedules)
      .where(and(eq(schedules.projectId, actor.projectId), isNull(schedules.deletedAt)));
    if ((live?.total ?? 0) >= MAX_SCHEDULES_PER_PROJECT)
      throw new ConflictError(`A project can have at most ${MAX_SCHEDULES_PER_PROJECT} schedules`, { limit: MAX_SCHEDULES_PER_PROJECT });
    const { agentId } = await checkScheduleReferences(tx, actor, draft);
    const now = tx.clock.now();
    const [row] = await tx.db
      .insert(schedules)
      .values({
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        name: body.name ?? null,
        ...draft,
        agentId,
        cron: body.cron ?? null,
        intervalSeconds: body.intervalSeconds ?? null,
        timeZone: body.timeZone ?? 'UTC',
        message: body.message,
        overlap: body.overlap ?? 'skip',
        catchupWindowSeconds: body.catchupWindowSeconds ?? DEFAULT_CATCHUP_WINDOW_SECONDS,
        paused: body.paused ?? false,
        createdByPrincipalId: actor.principalId,
        actingPrincipalId: actor.principalId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordAudit(tx, { action: 'schedule.created', targetType: 'schedule', targetId: row!.id, details: auditDetails(row!) });
    syncAfterCommit(tx, deps, row!.id);
    return toScheduleResponse(row!, { nextFirings: [], recentFirings: [] });
  });
}

/** What the audit trail keeps of a schedule: its wiring, timing and acting principal, never its message. */
export const auditDetails = (row: typeof schedules.$inferSelect) => ({
  actingPrincipalId: row.actingPrincipalId,
  agentId: row.agentId,
  agentVersionId: row.agentVersionId,
  target: row.target,
  sessionId: row.sessionId,
  memoryStores: row.memoryStores,
  cron: row.cron,
  intervalSeconds: row.intervalSeconds,
  timeZone: row.timeZone,
  overlap: row.overlap,
  paused: row.paused,
});
