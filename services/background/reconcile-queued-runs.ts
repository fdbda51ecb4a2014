import { and, asc, eq, isNull, lt } from 'drizzle-orm';
import { delegationCalls, runs, sessions } from '../../db/schema/index.ts';
import type { ServiceContext } from '../service-context.ts';
import type { RunStarter } from '../run-starter.ts';

/** A run is reconciled once it has been queued this long without its workflow starting. */
export const RECONCILE_AFTER_MS = 5_000;
/** How often the worker looks for such runs. */
export const RECONCILE_INTERVAL_MS = 2_500;

/**
 * Starts the workflow of every run that has stayed `queued` for a while (ARCHITECTURE durability
 * rule 2): the API starts workflows after commit, but a crash between commit and start must lose
 * nothing. Starting is idempotent (`run:<runId>`), so an already running workflow is untouched.
 * Returns how many runs it (re)started.
 */
export async function reconcileQueuedRuns(ctx: ServiceContext, starter: RunStarter, options: { limit?: number } = {}): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - RECONCILE_AFTER_MS);
  const queued = await ctx.db
    .select({ runId: runs.id, projectId: runs.projectId, sessionId: runs.sessionId, agentId: sessions.agentId })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    // A run a coordinator's delegation call queued is started by that coordinator's workflow
    // (as its child), which is durable itself; starting it here would race that start.
    .leftJoin(delegationCalls, eq(delegationCalls.childRunId, runs.id))
    // A run admission deferred (the project's running-runs limit) has its workflow, waiting.
    .where(and(eq(runs.state, 'queued'), isNull(runs.settledAt), isNull(runs.admissionDeferredAt), lt(runs.createdAt, cutoff), isNull(delegationCalls.toolCallId)))
    .orderBy(asc(runs.createdAt))
    .limit(options.limit ?? 100);
  for (const run of queued) {
    try {
      await starter.start(run);
    } catch (error) {
      ctx.logger.warn('could not start a queued run; will retry', { runId: run.runId, err: error });
    }
  }
  return queued.length;
}

/**
 * Runs `reconcileQueuedRuns` every `intervalMs` until stopped (in the worker process): a run
 * whose start was lost starts within `RECONCILE_AFTER_MS + intervalMs` (under 10 s) of its commit.
 */
export function startRunReconciler(ctx: ServiceContext, starter: RunStarter, intervalMs = RECONCILE_INTERVAL_MS): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  // `tick` never rejects (it logs its own failure), so the timers may drop its promise.
  const schedule = (delayMs: number) => setTimeout(() => void tick(), delayMs);
  const tick = async () => {
    try {
      await reconcileQueuedRuns(ctx, starter);
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
