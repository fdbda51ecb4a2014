import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../../db/client.ts';
import { agentVersions, runs } from '../../../db/schema/index.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { isSettled, type SettledRunState } from '../../../domain/runs/states.ts';
import { observeRunMoved } from '../../kernel/metrics/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { mayStartRun, type AdmissionGate } from './admission-gate.ts';
import { handOffPendingTurn } from './hand-off-pending-turn.ts';
import { transitionLockedRun } from './transition.ts';

/** What the run workflow learns when it admits its run. */
export type Admission =
  | { kind: 'settled'; state: SettledRunState }
  /** The project's running-runs limit is reached: the run stays `queued` until woken (admission-gate.ts). */
  | { kind: 'waiting' }
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
      /**
       * The run's final reply settles it in its own model call (`callModel`'s `settleOnReply`):
       * true without a workspace to back up first. Admissions recorded before issue 33 lack it,
       * and those runs replay with their separate settlement step.
       */
      settlesOnReply?: boolean;
    };

/**
 * Admits a run for the runtime (no actor): a `queued` run becomes `running` (its `admittedAt`
 * set), unless cancellation was requested before it started, in which case it settles
 * `cancelled` at once, or its project already runs `runningRunsLimit` runs, in which case it
 * waits (`waiting`; `timed_out` once past its wall-time ceiling). Returns the pinned version's
 * limits the workflow enforces. Idempotent: a run already running is admitted again unchanged; a settled run reports its state. 404 when
 * the run is gone (its project was deleted): a permanent failure for the workflow.
 */
export async function admitRun({
  ctx,
  input,
  gate,
}: {
  ctx: ServiceContext;
  input: { runId: string };
  gate: Pick<AdmissionGate, 'runningRunsLimit' | 'start'>;
}): Promise<Admission> {
  const quick = await admitInOneStatement(ctx, input.runId, gate.runningRunsLimit);
  if (quick) return quick;
  return withTransaction(ctx, async (tx) => {
    // The run, locked, with its pinned version's config (one statement; the version never changes).
    const [row] = await tx.db
      .select({ run: runs, config: agentVersions.config })
      .from(runs)
      .innerJoin(agentVersions, eq(agentVersions.id, runs.agentVersionId))
      .where(eq(runs.id, input.runId))
      .for('update', { of: runs });
    if (!row) throw new NotFoundError('No run with that id');
    const { run } = row;
    if (isSettled(run.state)) return { kind: 'settled', state: run.state as SettledRunState };
    if (run.state === 'queued' && run.cancellationRequestedAt) {
      const settled = await transitionLockedRun(tx, run, {
        to: 'cancelled',
        failure: { errorCode: 'cancelled', errorExplanation: 'The run was cancelled before it started.' },
      });
      await handOffPendingTurn(tx, gate, settled);
      return { kind: 'settled', state: 'cancelled' };
    }
    if (run.state === 'queued') {
      if (gate.runningRunsLimit && !(await mayStartRun(tx, run, gate.runningRunsLimit))) {
        if (tx.clock.now() < run.wallDeadlineAt) return { kind: 'waiting' };
        const settled = await transitionLockedRun(tx, run, {
          to: 'timed_out',
          failure: { errorCode: 'run_timed_out', errorExplanation: 'The run waited for a free place past its 48-hour wall-time ceiling.' },
        });
        await handOffPendingTurn(tx, gate, settled);
        return { kind: 'settled', state: 'timed_out' };
      }
      await transitionLockedRun(tx, run, { to: 'running' });
    }
    return admitted(row.config as unknown as AgentConfig, run.wallDeadlineAt, run.cancellationRequestedAt !== null);
  });
}

type QuickAdmission =
  | null
  | { kind: 'settled'; state: SettledRunState }
  | { kind: 'fallback' }
  | {
      kind: 'admitted';
      /** It moved from queued to running now, admitted for the first time (the queue-time metric). */
      firstAdmission: boolean;
      createdAt: string;
      config: Pick<AgentConfig, 'limits' | 'sandbox'>;
      wallDeadlineAt: string;
      cancellationRequested: boolean;
    };

/**
 * The common case — a settled run, a run already running, or a queued run with a free place — in
 * one statement and one round trip (`svc_admit_run`, source in admit-run.sql, created by migration
 * 0028); null for the rest (a cancellation before the start, no free place), which the
 * transaction above decides, having found nothing written. Outside any transaction of the caller:
 * the statement commits on its own.
 */
async function admitInOneStatement(ctx: ServiceContext, runId: string, limit: number | null): Promise<Admission | null> {
  if (ctx.inTransaction || ctx.transactionScope) return null;
  const now = ctx.clock.now();
  const [row] = rowsOf<{ admission: QuickAdmission }>(
    await ctx.db.execute(sql`select svc_admit_run(${runId}::uuid, ${limit}::int, ${now.toISOString()}::timestamptz) as admission`),
  );
  const admission = row?.admission ?? null;
  if (!admission) throw new NotFoundError('No run with that id');
  if (admission.kind === 'fallback') return null;
  if (admission.kind === 'settled') return admission;
  if (admission.firstAdmission) observeRunMoved({ createdAt: new Date(admission.createdAt), admittedAt: null }, 'running', now, null);
  return admitted(admission.config, new Date(admission.wallDeadlineAt), admission.cancellationRequested);
}

/** What an admitted run's workflow enforces: its pinned version's limits, and whether it settles on its reply. */
function admitted(config: Pick<AgentConfig, 'limits' | 'sandbox'>, wallDeadlineAt: Date, cancellationRequested: boolean): Admission {
  return {
    kind: 'admitted',
    maxTurns: config.limits.maxTurns,
    timeoutMs: config.limits.timeoutMs,
    wallDeadlineAtMs: wallDeadlineAt.getTime(),
    cancellationRequested,
    sandboxEnabled: config.sandbox.enabled,
    settlesOnReply: !config.sandbox.enabled,
  };
}
