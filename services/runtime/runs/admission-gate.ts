import { and, asc, eq, gt, isNotNull, isNull, notInArray, sql, type Column } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { rowsOf, RUN_ADMISSION_LOCK, type Executor } from '../../../db/client.ts';
import { delegationCalls, runs, toolCalls } from '../../../db/schema/index.ts';
import { SETTLED_STATES } from '../../../domain/runs/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { RunStarter } from '../../kernel/run-starter.ts';
import type { RunRow } from './public.ts';
import { transitionLockedRun } from './transition.ts';

/**
 * The per-project limit on runs executing at once (SVC_PROJECT_RUNNING_RUNS_LIMIT), so one
 * tenant's backlog cannot take every worker slot (docs/decisions/running-runs-limit.md).
 * `wake` tells a run waiting for a place to try again (the run workflow's `capacityFreed` signal);
 * `start` starts a run the runtime queued itself (a pending turn handed off when its session's
 * run settled).
 */
export type AdmissionGate = { runningRunsLimit: number | null; wake(runId: string): Promise<void>; start: RunStarter['start'] };

/**
 * Whether a queued run may start now, inside admission's transaction (the run row locked): yes
 * while fewer than `limit` of its project's runs hold a place (`placeHolders`). A delegated run
 * is admitted like any other: its coordinator, waiting for it, holds no place, so the children of
 * a fan-out share the project's limit with everything else and cannot deadlock it. Admissions of
 * one project are serialized by a transaction lock, so the count cannot be raced past the limit.
 * A run told to wait is marked `admissionDeferredAt` (the reconciler leaves it alone: its
 * workflow exists and waits).
 */
export async function mayStartRun(tx: ServiceContext, run: RunRow, limit: number): Promise<boolean> {
  await lockProjectAdmissions(tx, run.projectId);
  if ((await countPlaceHolders(tx.db, run.projectId, limit)) < limit) return true;
  if (!run.admissionDeferredAt) await tx.db.update(runs).set({ admissionDeferredAt: tx.clock.now() }).where(eq(runs.id, run.id));
  return false;
}

/**
 * The project's runs that hold a place, counted up to `upTo`: those `running`, except a
 * coordinator while any of its delegated child runs is unsettled (it only waits for them; the
 * children hold places of their own). The count stops at `upTo`, so checking the limit costs the
 * same however large the backlog behind it.
 */
async function countPlaceHolders(db: Executor, projectId: string, upTo: number): Promise<number> {
  const holder = alias(runs, 'holder');
  const holders = db
    .select({ one: sql`1` })
    .from(holder)
    .where(and(eq(holder.projectId, projectId), eq(holder.state, 'running'), sql`not exists (${unsettledChildrenOf(db, holder.id)})`))
    .limit(upTo);
  const [row] = rowsOf<{ count: number }>(await db.execute(sql`select count(*)::int as count from (${holders}) as up_to_limit`));
  return row?.count ?? 0;
}

/** The unsettled delegated child runs of the coordinator run `runId` (a column or a value). */
function unsettledChildrenOf(db: Executor, runId: Column | string) {
  const child = alias(runs, 'child');
  return db
    .select({ one: sql`1` })
    .from(toolCalls)
    .innerJoin(delegationCalls, eq(delegationCalls.toolCallId, toolCalls.id))
    .innerJoin(child, eq(child.id, delegationCalls.childRunId))
    .where(and(eq(toolCalls.runId, runId), notInArray(child.state, [...SETTLED_STATES])));
}

/**
 * Inside the transaction in which `run` stops executing (it settles, or starts waiting for a tool
 * or an approval): its place goes to the project's oldest deferred run, which is admitted here
 * (`queued` → `running`) and woken after the commit; its workflow's admission then finds it
 * running. Handing the place over, rather than waking runs to compete for it, means a freed place
 * is taken exactly once: before, every settlement woke the oldest waiting runs, most of which
 * found the place gone and waited again (at 64 runs in flight against the limit of 32, that churn
 * cost a third of the CPU of a run). Under the project's admission lock, so an admission counting
 * the places sees each either still held or already handed over. A run whose own re-check holds
 * its row is skipped for the next; a run cancelled or past its wall ceiling is left to its own
 * admission (its re-check or its cancellation signal settles it).
 *
 * Delegation (docs/decisions/running-runs-limit.md): a coordinator waiting for its children held
 * no place, so its settlement hands none on; the last of a coordinator's children to settle hands
 * its place back to the coordinator, which goes on at once rather than queueing behind the backlog.
 */
export async function handOffPlace(tx: ServiceContext, gate: AdmissionGate, run: Pick<RunRow, 'id' | 'projectId'>): Promise<void> {
  if (!gate.runningRunsLimit) return;
  const deferred = and(
    eq(runs.projectId, run.projectId),
    eq(runs.state, 'queued'),
    isNotNull(runs.admissionDeferredAt),
    isNull(runs.cancellationRequestedAt),
    gt(runs.wallDeadlineAt, tx.clock.now()),
  );
  // Usually nobody waits: one read, no lock.
  const [anyone] = await tx.db.select({ id: runs.id }).from(runs).where(deferred).limit(1);
  if (!anyone) return;
  await lockProjectAdmissions(tx, run.projectId);
  if (!(await heldAPlace(tx.db, run.id)) || (await returnsToCoordinator(tx.db, run.id))) return;
  const [next] = await tx.db.select().from(runs).where(deferred).orderBy(asc(runs.createdAt)).limit(1).for('update', { skipLocked: true });
  if (!next) return;
  await transitionLockedRun(tx, next, { to: 'running' });
  tx.afterCommit.push(() => gate.wake(next.id));
}

/** Whether a run that was `running` held a place: not while it waited for a child run still unsettled. */
async function heldAPlace(db: Executor, runId: string): Promise<boolean> {
  const [waiting] = await unsettledChildrenOf(db, runId).limit(1);
  return !waiting;
}

/**
 * Whether `childRunId`, settling in this transaction, is the last unsettled child run of a
 * coordinator that is `running`: then the coordinator holds a place again, this one.
 */
async function returnsToCoordinator(db: Executor, childRunId: string): Promise<boolean> {
  const coordinator = alias(runs, 'coordinator');
  const [parent] = await db
    .select({ id: coordinator.id })
    .from(delegationCalls)
    .innerJoin(toolCalls, eq(toolCalls.id, delegationCalls.toolCallId))
    .innerJoin(coordinator, eq(coordinator.id, toolCalls.runId))
    .where(and(eq(delegationCalls.childRunId, childRunId), eq(coordinator.state, 'running')))
    .limit(1);
  return parent !== undefined && (await heldAPlace(db, parent.id));
}

/** Serializes, until the transaction ends, everything that counts or moves the project's running places. */
async function lockProjectAdmissions(tx: ServiceContext, projectId: string): Promise<void> {
  await tx.db.execute(sql`select pg_advisory_xact_lock(${RUN_ADMISSION_LOCK}, hashtext(${projectId}))`);
}
