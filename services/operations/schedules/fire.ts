import { and, eq } from 'drizzle-orm';
import { projects, scheduleFirings, schedules } from '../../../db/schema/index.ts';
import { ConflictError, DomainError } from '../../../domain/errors.ts';
import type { FiringOutcome, FiringResult } from '../../../domain/schedules/workflow.ts';
import { scopesToFire } from '../../../domain/schedules/authority.ts';
import { missingScopes } from '../../../domain/scopes.ts';
import { principalActorNow } from '../../access/auth/index.ts';
import { deferTransaction } from '../../kernel/deferred-transaction.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { createFollowUpRun } from '../../runtime/runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { createSession } from '../../runtime/sessions/index.ts';
import { runAfterCommit } from '../../kernel/transaction.ts';
import type { ScheduleFiringRow, ScheduleRow } from './public.ts';

type Firing = { scheduleId: string; firingKey: string; scheduledAt: Date };
/** What a firing made, before its row is written. */
type Made = { outcome: FiringOutcome; sessionId: string | null; runId: string | null; pendingTurnId: string | null; errorCode?: string; errorMessage?: string };

/**
 * One firing of a schedule (the firing workflow's activity), idempotent per firing key: the
 * firing workflow's id, which carries the scheduled time. A firing already recorded answers its
 * record and makes nothing. Otherwise it acts as the schedule's acting principal (who last changed
 * what it does, docs/decisions/schedule-acting-principal.md), whose scopes are checked now
 * (`forbidden` when the principal is gone, its key revoked, or it lost `run:create`, or
 * `session:write` for new sessions), and makes the session (`new_session`) or the turn
 * (`session`) through the same verbs as the HTTP routes. The firing row is inserted in the very
 * transaction that creates the session or run (the verbs join it: `deferTransaction`), so a retry
 * after a crash finds either both or neither; of two concurrent attempts, the second one's insert
 * conflicts on `(scheduleId, firingKey)` and rolls its run back. A refusal of the verbs (a deleted
 * agent, an archived session, a memory store deleted or archived since, the project's
 * unsettled-runs quota: `rate_limited`) is recorded `failed` with its code and safe message (and
 * the field it names), never retried; a
 * busy session with `ifBusy: skip`, `skipped`. A schedule deleted (or whose project is) before the
 * firing started is `gone`: nothing is recorded. Other errors (the database) are thrown for the
 * activity to retry.
 */
export async function fireSchedule({ ctx, deps, input }: { ctx: ServiceContext; deps: RunStarterDeps; input: Firing }): Promise<FiringResult> {
  const earlier = await findFiring(ctx, input);
  if (earlier) return resultOf(earlier);
  const [found] = await ctx.db
    .select({ schedule: schedules })
    .from(schedules)
    .innerJoin(projects, eq(projects.id, schedules.projectId))
    .where(eq(schedules.id, input.scheduleId));
  const schedule = found?.schedule;
  if (!schedule || schedule.deletedAt) return { kind: 'gone' };

  // The runs, sessions and every later check of "the run's creator" (MCP `mcp:execute`,
  // delegation) are the acting principal's.
  const required = scopesToFire(schedule.target);
  const actor = await principalActorNow({ db: ctx.db, input: { principalId: schedule.actingPrincipalId } });
  const missing = actor ? missingScopes(actor.scopes, required) : required;
  if (!actor || missing.length > 0) {
    const message = actor
      ? `The schedule's acting principal (who last changed what it does) no longer holds ${missing.join(', ')}`
      : "The schedule's acting principal (who last changed what it does) can no longer act (removed, or its API key revoked)";
    return record(ctx, schedule, input, {
      outcome: 'failed',
      sessionId: null,
      runId: null,
      pendingTurnId: null,
      errorCode: 'forbidden',
      errorMessage: message,
    });
  }

  const acting: ServiceContext = { ...ctx, actor };
  const transaction = deferTransaction(acting);
  let made: Made;
  try {
    made = await makeTurn({ ...acting, transactionScope: transaction.scope }, deps, schedule, input.firingKey);
  } catch (error) {
    await transaction.rollBack();
    if (!(error instanceof DomainError)) throw error;
    const busy = error instanceof ConflictError && schedule.ifBusy === 'skip' && typeof error.details?.latestRunId === 'string';
    if (busy) return record(ctx, schedule, input, { outcome: 'skipped', sessionId: schedule.sessionId, runId: null, pendingTurnId: null });
    return record(ctx, schedule, input, {
      outcome: 'failed',
      sessionId: null,
      runId: null,
      pendingTurnId: null,
      errorCode: error.code,
      errorMessage: explanation(error),
    });
  }
  const row = firingRow(ctx, schedule, input, made);
  const committed = await transaction.commit((db) => db.insert(scheduleFirings).values(row).onConflictDoNothing().returning({ id: scheduleFirings.id }));
  if (!committed) return resultOf((await findFiring(ctx, input))!);
  // The run's workflow starts now, as after a request's commit.
  await runAfterCommit(acting, transaction.afterCommit);
  return resultOf(row);
}

/** The session or turn of one firing, through the verbs the HTTP routes call. */
async function makeTurn(ctx: ServiceContext, deps: RunStarterDeps, schedule: ScheduleRow, firingKey: string): Promise<Made> {
  const files = schedule.files.length > 0 ? schedule.files : undefined;
  if (schedule.target === 'new_session') {
    const agent = schedule.agentVersionId ? { agentVersionId: schedule.agentVersionId, anyVersion: true } : { agentId: schedule.agentId };
    const session = await createSession({
      ctx,
      deps,
      input: {
        ...agent,
        title: schedule.name,
        initialMessage: schedule.message,
        files,
        // Attached as POST /sessions attaches them: a store deleted or archived since fails the firing.
        ...(schedule.memoryStores.length > 0 ? { memoryStores: schedule.memoryStores } : {}),
        idempotencyKey: firingKey,
      },
    });
    return { outcome: 'started', sessionId: session.id, runId: session.run?.id ?? null, pendingTurnId: null };
  }
  const answer = await createFollowUpRun({
    ctx,
    deps,
    input: {
      sessionId: schedule.sessionId!,
      message: schedule.message,
      files,
      ifBusy: schedule.ifBusy === 'enqueue' ? 'enqueue' : 'reject',
      idempotencyKey: firingKey,
    },
  });
  if ('queued' in answer) return { outcome: 'enqueued', sessionId: schedule.sessionId, runId: null, pendingTurnId: answer.pendingTurn.id };
  return { outcome: 'started', sessionId: answer.sessionId, runId: answer.id, pendingTurnId: null };
}

/**
 * The safe message of a refusal, with the field of the schedule it names when the message does
 * not (a memory store's 404 says only "Memory store not found").
 */
function explanation(error: DomainError): string {
  const path = error.details?.path;
  if (typeof path !== 'string' || !path.startsWith('body.')) return error.message;
  const field = path.slice('body.'.length);
  return error.message.includes(field) ? error.message : `${error.message} (${field})`;
}

/** Records a firing that made nothing (skipped, failed); an earlier record of it wins. */
async function record(ctx: ServiceContext, schedule: ScheduleRow, firing: Firing, made: Made): Promise<FiringResult> {
  const row = firingRow(ctx, schedule, firing, made);
  const inserted = await ctx.db.insert(scheduleFirings).values(row).onConflictDoNothing().returning({ id: scheduleFirings.id });
  return resultOf(inserted.length > 0 ? row : (await findFiring(ctx, firing))!);
}

function firingRow(ctx: ServiceContext, schedule: ScheduleRow, firing: Firing, made: Made) {
  return {
    organizationId: schedule.organizationId,
    projectId: schedule.projectId,
    scheduleId: schedule.id,
    firingKey: firing.firingKey,
    scheduledAt: firing.scheduledAt,
    firedAt: ctx.clock.now(),
    outcome: made.outcome,
    sessionId: made.sessionId,
    runId: made.runId,
    pendingTurnId: made.pendingTurnId,
    errorCode: made.errorCode ?? null,
    errorExplanation: made.errorMessage ?? null,
  };
}

async function findFiring(ctx: ServiceContext, firing: Firing): Promise<ScheduleFiringRow | null> {
  const [row] = await ctx.db
    .select()
    .from(scheduleFirings)
    .where(and(eq(scheduleFirings.scheduleId, firing.scheduleId), eq(scheduleFirings.firingKey, firing.firingKey)));
  return row ?? null;
}

const resultOf = (row: Pick<ScheduleFiringRow, 'outcome' | 'sessionId' | 'runId'>): FiringResult => ({
  kind: 'recorded',
  outcome: row.outcome,
  sessionId: row.sessionId,
  runId: row.runId,
  // A run or a pending turn is waited for, so that `overlap` sees the firing running until it settles.
  awaits: row.outcome === 'started' || row.outcome === 'enqueued',
});
