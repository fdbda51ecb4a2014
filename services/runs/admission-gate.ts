import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import { RUN_ADMISSION_LOCK } from '../../db/client.ts';
import { delegationCalls, runs } from '../../db/schema/index.ts';
import type { ServiceContext } from '../service-context.ts';
import type { RunStarter } from '../run-starter.ts';
import { countProjectRuns } from './count-project-runs.ts';
import type { RunRow } from './public.ts';

/**
 * The per-project limit on runs executing at once (SVC_PROJECT_RUNNING_RUNS_LIMIT), so one
 * tenant's backlog cannot take every worker slot (docs/decisions.md "Rate limits and quotas").
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
  await tx.db.execute(sql`select pg_advisory_xact_lock(${RUN_ADMISSION_LOCK}, hashtext(${run.projectId}))`);
  if ((await countProjectRuns(tx.db, run.projectId, ['running'], limit)) < limit) return true;
  const [delegated] = await tx.db.select({ toolCallId: delegationCalls.toolCallId }).from(delegationCalls).where(eq(delegationCalls.childRunId, run.id)).limit(1);
  if (delegated) return true;
  if (!run.admissionDeferredAt) await tx.db.update(runs).set({ admissionDeferredAt: tx.clock.now() }).where(eq(runs.id, run.id));
  return false;
}

/**
 * After a run of `projectId` stopped executing (settled, or waiting for a tool or an approval):
 * wakes as many of the project's oldest runs waiting for a place as there are free places.
 * Hints only: a woken run re-checks the limit, and a waiting run also re-checks every minute.
 */
export async function wakeDeferredRuns(ctx: ServiceContext, gate: AdmissionGate, projectId: string): Promise<void> {
  const limit = gate.runningRunsLimit;
  if (!limit) return;
  const waiting = await ctx.db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.projectId, projectId), eq(runs.state, 'queued'), isNotNull(runs.admissionDeferredAt)))
    .orderBy(asc(runs.createdAt))
    .limit(limit);
  if (waiting.length === 0) return;
  const free = limit - (await countProjectRuns(ctx.db, projectId, ['running'], limit));
  for (const run of waiting.slice(0, Math.max(0, free))) await gate.wake(run.id);
}
