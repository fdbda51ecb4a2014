import { and, asc, eq, isNull, lt, notInArray } from 'drizzle-orm';
import { delegationCalls, runs, sessions } from '../db/schema/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import type { RunStarter } from '../services/kernel/run-starter.ts';

/**
 * A run is reconciled once it has been queued this long without being admitted. Its API process
 * starts it right after the commit, and its workflow admits it within milliseconds; a run still
 * queued after this lost its start (the API died) unless the workflow tasks are backlogged.
 */
export const RECONCILE_AFTER_MS = 2_000;
/** How often the worker looks for such runs. */
export const RECONCILE_INTERVAL_MS = 1_000;
/**
 * A run the reconciler started and that is still queued is backlogged, not lost: it is started
 * again (idempotently) only after this long, so a backlog costs one start call per run rather
 * than one per pass.
 */
export const RESTART_AFTER_MS = 30_000;

/**
 * Starts the workflow of every run that has stayed `queued` for a while (ARCHITECTURE durability
 * rule 2): the API starts workflows after commit, but a crash between commit and start must lose
 * nothing. Starting is idempotent (`run:<runId>`), so an already running workflow is untouched.
 * Runs in `skip` are left alone. Returns the ids of the runs it (re)started.
 */
export async function reconcileQueuedRuns(
  ctx: ServiceContext,
  starter: RunStarter,
  options: { limit?: number; skip?: ReadonlySet<string> } = {},
): Promise<string[]> {
  const cutoff = new Date(ctx.clock.now().getTime() - RECONCILE_AFTER_MS);
  const queued = await ctx.db
    .select({ runId: runs.id, projectId: runs.projectId, sessionId: runs.sessionId, agentId: sessions.agentId })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    // A run a coordinator's delegation call queued is started by that coordinator's workflow
    // (as its child), which is durable itself; starting it here would race that start.
    .leftJoin(delegationCalls, eq(delegationCalls.childRunId, runs.id))
    // A run admission deferred (the project's running-runs limit) has its workflow, waiting.
    .where(
      and(
        eq(runs.state, 'queued'),
        isNull(runs.settledAt),
        isNull(runs.admissionDeferredAt),
        lt(runs.createdAt, cutoff),
        isNull(delegationCalls.toolCallId),
        options.skip && options.skip.size > 0 ? notInArray(runs.id, [...options.skip]) : undefined,
      ),
    )
    .orderBy(asc(runs.createdAt))
    .limit(options.limit ?? 100);
  const started: string[] = [];
  for (const run of queued) {
    try {
      await starter.start(run);
      started.push(run.runId);
    } catch (error) {
      ctx.logger.warn('could not start a queued run; will retry', { runId: run.runId, err: error });
    }
  }
  return started;
}

/**
 * Runs `reconcileQueuedRuns` every `intervalMs` until stopped (in the worker process): a run
 * whose start was lost starts within `RECONCILE_AFTER_MS + intervalMs` (3 s) of its commit.
 */
export function startRunReconciler(ctx: ServiceContext, starter: RunStarter, intervalMs = RECONCILE_INTERVAL_MS): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  // `tick` never rejects (it logs its own failure), so the timers may drop its promise.
  const schedule = (delayMs: number) => setTimeout(() => void tick(), delayMs);
  // Runs this reconciler started, by when: left alone for RESTART_AFTER_MS.
  const recent = new Map<string, number>();
  const tick = async () => {
    try {
      const now = ctx.clock.now().getTime();
      for (const [runId, at] of recent) if (now - at >= RESTART_AFTER_MS) recent.delete(runId);
      for (const runId of await reconcileQueuedRuns(ctx, starter, { skip: new Set(recent.keys()) })) recent.set(runId, now);
    } catch (error) {
      ctx.logger.error('run reconciler failed', { err: error });
    }
    if (!stopped) timer = schedule(intervalMs);
  };
  timer = schedule(0);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
