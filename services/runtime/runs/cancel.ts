import { eq } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findRun } from './load.ts';
import { toRunResponse, type PublicRun } from './public.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';

/**
 * Requests cancellation of a run (`POST /runs/{id}/cancel`) and answers with the run as it is:
 * the state does not change here, the runtime drains and settles it. The first request records
 * `cancellationRequestedAt`, `run.cancellation_requested` and an audit entry; repeats keep that
 * first time and only send the (idempotent) signal again. A settled run is returned unchanged.
 */
export async function cancelRun({ ctx, deps, input }: { ctx: ServiceContext; deps: RunStarterDeps; input: { runId: string } }): Promise<PublicRun> {
  return withTransaction(ctx, async (tx) => {
    const run = await findRun(tx, input.runId, { forUpdate: true });
    if (isSettled(run.state)) return toRunResponse(run);
    let current = run;
    if (!run.cancellationRequestedAt) {
      const now = tx.clock.now();
      const [updated] = await tx.db.update(runs).set({ cancellationRequestedAt: now, updatedAt: now }).where(eq(runs.id, run.id)).returning();
      current = updated!;
      await recordAudit(tx, {
        action: 'run.cancellation_requested',
        targetType: 'run',
        targetId: run.id,
        details: { sessionId: run.sessionId, state: run.state },
      });
      await appendProductEvent(tx, {
        organizationId: run.organizationId,
        projectId: run.projectId,
        aggregateType: 'run',
        aggregateId: run.id,
        kind: EVENT_KINDS.runCancellationRequested,
        publicPayload: { runId: run.id, sessionId: run.sessionId, state: run.state, cancellationRequestedAt: now.toISOString() },
      });
    }
    tx.afterCommit.push(() => deps.runStarter.requestCancellation(run.id));
    return toRunResponse(current);
  });
}
