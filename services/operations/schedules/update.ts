import { eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { schedules } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { changesWork, type ScheduleWork } from '../../../domain/schedules/authority.ts';
import { scheduleFieldsProblem, storedMemoryStores, UpdateScheduleInput } from '../../../domain/schedules/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { checkScheduleReferences, type ScheduleDraft } from './check-references.ts';
import { auditDetails } from './create.ts';
import { withFiringDetails } from './details.ts';
import { loadSchedule } from './load.ts';
import { assertMinimumInterval, type ScheduleWriteDeps } from './minimum-interval.ts';
import type { PublicSchedule, ScheduleRow } from './public.ts';
import { syncAfterCommit } from './sync.ts';

/**
 * Changes a schedule (`PATCH /schedules/{id}`; the merge rules are UpdateScheduleInput's). The
 * merged schedule is checked as a new one would be, the caller's scopes and the minimum interval
 * included. A change of what the schedule does (its message, files, agent or version, target or
 * session, memory stores: `changesWork`) makes the caller its acting principal, so later firings act with the
 * caller's authority, never the one of whoever acted before
 * (docs/decisions/schedule-acting-principal.md); a change of only when it fires keeps the
 * acting principal. The revision goes up and the Temporal Schedule follows after the commit.
 */
export async function updateSchedule({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: ScheduleWriteDeps;
  input: { scheduleId: string } & v.InferInput<typeof UpdateScheduleInput>;
}): Promise<PublicSchedule> {
  const actor = requireActor(ctx);
  const { scheduleId, ...fields } = input;
  const body = v.parse(UpdateScheduleInput, fields);
  return withTransaction(ctx, async (tx) => {
    const current = await loadSchedule(tx, { projectId: actor.projectId, scheduleId, lock: true });
    const target = body.target ?? current.target;
    const draft: ScheduleDraft = {
      ...agentOf(current, body, target),
      target,
      // A schedule moved to new sessions forgets its session.
      sessionId: target === 'session' ? (body.sessionId ?? current.sessionId) : null,
      ifBusy: target === 'session' ? (body.ifBusy ?? current.ifBusy ?? 'enqueue') : null,
      files: body.files ?? current.files.map((file) => ({ uploadId: String(file.uploadId) })),
      // A schedule moved to a session forgets its memory stores (that session keeps its own).
      memoryStores: body.memoryStores !== undefined ? storedMemoryStores(body.memoryStores) : target === 'session' ? [] : current.memoryStores,
    };
    const timing =
      body.cron !== undefined
        ? { cron: body.cron, intervalSeconds: null }
        : body.intervalSeconds !== undefined
          ? { cron: null, intervalSeconds: body.intervalSeconds }
          : { cron: current.cron, intervalSeconds: current.intervalSeconds };
    const problem = scheduleFieldsProblem({ ...draft, ...timing });
    if (problem) throw new ValidationError(`Invalid body: ${problem.path}: ${problem.message}`, { path: `body.${problem.path}` });
    assertMinimumInterval(timing.intervalSeconds, deps.minIntervalSeconds);
    const { agentId } = await checkScheduleReferences(tx, actor, draft);
    const message = body.message ?? current.message;
    const takesOver = changesWork(workOf(current), { ...draft, agentId, message });
    const [row] = await tx.db
      .update(schedules)
      .set({
        ...draft,
        ...timing,
        agentId,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.timeZone !== undefined ? { timeZone: body.timeZone } : {}),
        message,
        ...(takesOver ? { actingPrincipalId: actor.principalId } : {}),
        ...(body.overlap !== undefined ? { overlap: body.overlap } : {}),
        ...(body.catchupWindowSeconds !== undefined ? { catchupWindowSeconds: body.catchupWindowSeconds } : {}),
        revision: sql`${schedules.revision} + 1`,
        updatedAt: tx.clock.now(),
      })
      .where(eq(schedules.id, current.id))
      .returning();
    // The audit names the acting principal the change replaced, when it replaced one.
    const replaced = current.actingPrincipalId !== row!.actingPrincipalId ? { previousActingPrincipalId: current.actingPrincipalId } : {};
    await recordAudit(tx, {
      action: 'schedule.updated',
      targetType: 'schedule',
      targetId: row!.id,
      details: { ...auditDetails(row!), ...replaced, fields: Object.keys(fields).sort() },
    });
    syncAfterCommit(tx, deps, row!.id);
    // The next firings shown are the old Temporal Schedule's until the commit: none are shown.
    const [answer] = await withFiringDetails(tx, null, [row!]);
    return answer!;
  });
}

const workOf = (row: ScheduleRow): ScheduleWork => ({
  agentId: row.agentId,
  agentVersionId: row.agentVersionId,
  target: row.target,
  sessionId: row.sessionId,
  message: row.message,
  files: row.files.map((file) => ({ uploadId: String(file.uploadId) })),
  memoryStores: row.memoryStores,
});

/**
 * The agent reference after the change: a given `agentId` follows that agent's latest version, a
 * given `agentVersionId` pins that version; a session target without either takes its session's
 * agent; otherwise the schedule's own.
 */
function agentOf(current: ScheduleRow, body: UpdateScheduleInput, target: ScheduleRow['target']): Pick<ScheduleDraft, 'agentId' | 'agentVersionId'> {
  if (body.agentId !== undefined) return { agentId: body.agentId, agentVersionId: null };
  if (body.agentVersionId !== undefined) return { agentId: null, agentVersionId: body.agentVersionId };
  if (target === 'session') return { agentId: null, agentVersionId: null };
  return current.agentVersionId ? { agentId: null, agentVersionId: current.agentVersionId } : { agentId: current.agentId, agentVersionId: null };
}
