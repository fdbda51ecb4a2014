import { and, asc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { RUN_ADMISSION_LOCK } from '../../../db/client.ts';
import { delegationCalls, runs } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { RunStarter } from '../../kernel/run-starter.ts';
import { countProjectRuns } from './count-project-runs.ts';
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
 * while fewer than `limit` runs of its project are `running`; a delegated run always may (its
 * coordinator holds a place and waits for it). Admissions of one project are serialized by a
 * transaction lock, so the count cannot be raced past the limit. A run told to wait is marked
 * `admissionDeferredAt` (the reconciler leaves it alone: its workflow exists and waits).
 */
export async function mayStartRun(tx: ServiceContext, run: RunRow, limit: number): Promise<boolean> {
  await lockProjectAdmissions(tx, run.projectId);
  if ((await countProjectRuns(tx.db, run.projectId, ['running'], limit)) < limit) return true;
  const [delegated] = await tx.db
    .select({ toolCallId: delegationCalls.toolCallId })
    .from(delegationCalls)
    .where(eq(delegationCalls.childRunId, run.id))
    .limit(1);
  if (delegated) return true;
  if (!run.admissionDeferredAt) await tx.db.update(runs).set({ admissionDeferredAt: tx.clock.now() }).where(eq(runs.id, run.id));
  return false;
}

/**
 * Inside the transaction in which a run of `projectId` stops executing (it settles, or starts
 * waiting for a tool or an approval): its place goes to the project's oldest deferred run, which
 * is admitted here (`queued` → `running`) and woken after the commit; its workflow's admission
 * then finds it running. Handing the place over, rather than waking runs to compete for it, means
 * a freed place is taken exactly once: before, every settlement woke the oldest waiting runs,
 * most of which found the place gone and waited again (at 64 runs in flight against the limit of
 * 32, that churn cost a third of the CPU of a run). Under the project's admission lock, so an
 * admission counting the running runs sees the place either still held or already handed over.
 * A run whose own re-check holds its row is skipped for the next; a run cancelled or past its
 * wall ceiling is left to its own admission (its re-check or its cancellation signal settles it).
 */
export async function handOffPlace(tx: ServiceContext, gate: AdmissionGate, projectId: string): Promise<void> {
  if (!gate.runningRunsLimit) return;
  const deferred = and(
    eq(runs.projectId, projectId),
    eq(runs.state, 'queued'),
    isNotNull(runs.admissionDeferredAt),
    isNull(runs.cancellationRequestedAt),
    gt(runs.wallDeadlineAt, tx.clock.now()),
  );
  // Usually nobody waits: one read, no lock.
  const [anyone] = await tx.db.select({ id: runs.id }).from(runs).where(deferred).limit(1);
  if (!anyone) return;
  await lockProjectAdmissions(tx, projectId);
  const [next] = await tx.db.select().from(runs).where(deferred).orderBy(asc(runs.createdAt)).limit(1).for('update', { skipLocked: true });
  if (!next) return;
  await transitionLockedRun(tx, next, { to: 'running' });
  tx.afterCommit.push(() => gate.wake(next.id));
}

/** Serializes, until the transaction ends, everything that counts or moves the project's running places. */
async function lockProjectAdmissions(tx: ServiceContext, projectId: string): Promise<void> {
  await tx.db.execute(sql`select pg_advisory_xact_lock(${RUN_ADMISSION_LOCK}, hashtext(${projectId}))`);
}
