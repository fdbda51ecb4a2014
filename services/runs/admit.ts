import { eq } from 'drizzle-orm';
import { agentVersions, runs } from '../../db/schema/index.ts';
import type { AgentConfig } from '../../domain/agent-config/index.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { isSettled, type SettledRunState } from '../../domain/runs/states.ts';
import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';
import { transitionLockedRun } from './transition.ts';

/** What the run workflow learns when it admits its run. */
export type Admission =
  | { kind: 'settled'; state: SettledRunState }
  | {
      kind: 'admitted';
      maxTurns: number;
      /** Execution-time limit of the pinned version (`limits.timeoutMs`). */
      timeoutMs: number;
      /** The 48-hour wall-time ceiling, as epoch milliseconds. */
      wallDeadlineAtMs: number;
      /** Cancellation was requested before the workflow got here. */
      cancellationRequested: boolean;
      /** The pinned version enables a sandbox: the workspace is prepared before and backed up after. */
      sandboxEnabled: boolean;
    };

/**
 * Admits a run for the runtime (no actor): a `queued` run becomes `running` (its `admittedAt`
 * set), unless cancellation was requested before it started, in which case it settles
 * `cancelled` at once. Returns the pinned version's limits the workflow enforces. Idempotent: a
 * run already running is admitted again unchanged; a settled run reports its state. 404 when
 * the run is gone (its project was deleted): a permanent failure for the workflow.
 */
export async function admitRun({ ctx, input }: { ctx: ServiceContext; input: { runId: string } }): Promise<Admission> {
  return withTransaction(ctx, async (tx) => {
    const [run] = await tx.db.select().from(runs).where(eq(runs.id, input.runId)).for('update');
    if (!run) throw new NotFoundError('No run with that id');
    if (isSettled(run.state)) return { kind: 'settled', state: run.state as SettledRunState };
    if (run.state === 'queued' && run.cancellationRequestedAt) {
      await transitionLockedRun(tx, run, { to: 'cancelled', failure: { errorCode: 'cancelled', errorExplanation: 'The run was cancelled before it started.' } });
      return { kind: 'settled', state: 'cancelled' };
    }
    if (run.state === 'queued') await transitionLockedRun(tx, run, { to: 'running' });
    // The pinned version's config only (the run row is in hand).
    const [version] = await tx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, run.agentVersionId));
    if (!version) throw new NotFoundError('No agent version for that run');
    const config = version.config as unknown as AgentConfig;
    return {
      kind: 'admitted',
      maxTurns: config.limits.maxTurns,
      timeoutMs: config.limits.timeoutMs,
      wallDeadlineAtMs: run.wallDeadlineAt.getTime(),
      cancellationRequested: run.cancellationRequestedAt !== null,
      sandboxEnabled: config.sandbox.enabled,
    };
  });
}
