import { eq, getTableColumns } from 'drizzle-orm';
import * as v from 'valibot';
import { runs, sessions } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { runStateEventKind } from '../../../domain/runs/events.ts';
import { canTransition, isSettled, RUN_STATES, type RunState } from '../../../domain/runs/states.ts';
import { defaultFailureOf, hasFailure, type RunFailure } from '../../../domain/sessions/run-failure.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent, type AppendProductEventInput } from '../../kernel/events/index.ts';
import { countRunMoved, settlingRunAgentId } from '../../kernel/metrics/index.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { runUsage, type RunRow } from './public.ts';

const TransitionInput = v.object({
  runId: v.pipe(v.string(), v.uuid()),
  to: v.picklist(RUN_STATES),
  failure: v.optional(
    v.nullable(
      v.object({
        errorCode: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/, 'errorCode must be a lowercase code')),
        errorExplanation: v.pipe(v.string(), v.minLength(1), v.maxLength(2000)),
      }),
    ),
  ),
});
export type TransitionRunInput = { runId: string; to: RunState; failure?: RunFailure | null };

/**
 * Moves a run to `input.to` for the runtime (worker activities; no actor needed), in one transaction
 * with its consequences: `admittedAt` on the first `running`, `settledAt` (and `failure` for
 * failed, cancelled and timed-out runs — given, or a default per state) on settling, the
 * session's `status` and `lastActivityAt` when this is its latest run, and the `run.<state>`
 * product event.
 *
 * Idempotent for activity retries: asking for the state the run is already in changes nothing
 * and returns the run. Any other move `canTransition` refuses (for example, out of a settled
 * state) is a `ConflictError` carrying the current `state`; retrying it cannot succeed.
 */
export async function transitionRun({ ctx, input }: { ctx: ServiceContext; input: TransitionRunInput }): Promise<RunRow> {
  const change = checkTransitionInput(input);
  return withTransaction(ctx, async (tx) => {
    const [run] = await tx.db.select().from(runs).where(eq(runs.id, input.runId)).for('update');
    if (!run) throw new NotFoundError('No run with that id');
    return moveRun(tx, run, change);
  });
}

/**
 * `transitionRun` for a caller that has already read the run `for update` in the transaction
 * `tx` (admission, settlement and entering a wait do), so the row is not read twice. `extra`:
 * fields added to the `run.<state>` event (ids only), e.g. what a waiting run waits on.
 */
export async function transitionLockedRun(
  tx: ServiceContext,
  run: RunRow,
  change: Omit<TransitionRunInput, 'runId'>,
  extra: Record<string, unknown> = {},
): Promise<RunRow> {
  return moveRun(tx, run, checkTransitionInput({ runId: run.id, ...change }), extra);
}

async function moveRun(
  tx: ServiceContext,
  run: RunRow,
  { to, failure }: { to: RunState; failure?: RunFailure | null },
  extra: Record<string, unknown> = {},
): Promise<RunRow> {
  if (run.state === to) return run;
  if (!canTransition(run.state, to)) throw new ConflictError(`A ${run.state} run cannot become ${to}`, { runId: run.id, state: run.state });

  const now = tx.clock.now();
  const settling = isSettled(to);
  const recordedFailure = hasFailure(to) ? (failure ?? defaultFailureOf(to)) : null;
  if (!settling) {
    // Nothing of the moved row is unknown here (the caller holds its lock): the run's and the
    // session's updates ride with the event's append (`holdWrite`), one statement for three.
    const admittedAt = to === 'running' && !run.admittedAt ? now : run.admittedAt;
    const updated: RunRow = { ...run, state: to, updatedAt: now, admittedAt };
    await holdWrite(tx, tx.db.update(runs).set({ state: to, updatedAt: now, admittedAt }).where(eq(runs.id, run.id)));
    countRunMoved(tx, run, to, now, null);
    await holdWrite(tx, tx.db.update(sessions).set({ status: to, lastActivityAt: now }).where(eq(sessions.latestRunId, run.id)));
    await appendProductEvent(tx, runMovedEvent(run, updated, recordedFailure, extra));
    return updated;
  }
  const [moved] = await tx.db
    .update(runs)
    .set({ state: to, updatedAt: now, settledAt: now, failure: recordedFailure })
    .where(eq(runs.id, run.id))
    // A settling run's agent comes back with it, for the settled-runs metric's label.
    .returning({ ...getTableColumns(runs), agentId: settlingRunAgentId });
  const { agentId, ...updated } = moved!;
  countRunMoved(tx, run, to, now, agentId);
  // The session mirrors its latest run only; an older run never overwrites a newer status.
  await tx.db.update(sessions).set({ status: to, lastActivityAt: now }).where(eq(sessions.latestRunId, run.id));

  await appendProductEvent(tx, runMovedEvent(run, updated, recordedFailure, extra));
  return updated;
}

/**
 * The `run.<state>` event of a move from `run` (as it was) to `updated` (as written): ids, both
 * states, the failure, and on settling what the run used and cost, so a bill or a budget alert
 * needs no second read. `extra`: ids added by the caller (what a waiting run waits on).
 */
export function runMovedEvent(run: RunRow, updated: RunRow, recordedFailure: RunFailure | null, extra: Record<string, unknown> = {}): AppendProductEventInput {
  const to = updated.state;
  const payload: Record<string, unknown> = { ...extra, runId: run.id, sessionId: run.sessionId, state: to, previousState: run.state };
  if (recordedFailure) payload.failure = recordedFailure;
  if (isSettled(to)) {
    const { cost, ...usage } = runUsage(updated);
    payload.usage = usage;
    payload.cost = cost;
  }
  return {
    organizationId: run.organizationId,
    projectId: run.projectId,
    aggregateType: 'run',
    aggregateId: run.id,
    kind: runStateEventKind(to),
    publicPayload: payload,
  };
}

function checkTransitionInput(input: TransitionRunInput) {
  const parsed = v.safeParse(TransitionInput, input);
  if (!parsed.success) throw new ValidationError(`Invalid run transition: ${parsed.issues[0].message}`);
  const { to, failure } = parsed.output;
  if (failure && !hasFailure(to)) throw new ValidationError(`A run moving to ${to} carries no failure`);
  return parsed.output;
}
