import { eq } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { transitionRun } from './transition.ts';

/**
 * Records that a failed model attempt will be retried after `delayMs` (for the runtime): the run
 * moves `running` → `retry_scheduled` with the "Model retry scheduled" event, in one
 * transaction. Idempotent: a run that is no longer `running` (a replayed step) is left alone.
 * 404 when the run is gone.
 */
export async function scheduleModelRetry({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; turnId: string; attempt: number; errorCode: string; delayMs: number };
}): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const [run] = await tx.db.select().from(runs).where(eq(runs.id, input.runId)).for('update');
    if (!run) throw new NotFoundError('No run with that id');
    if (run.state !== 'running') return;
    await transitionRun({ ctx: tx, input: { runId: run.id, to: 'retry_scheduled' } });
    await appendProductEvent(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      aggregateType: 'run',
      aggregateId: run.id,
      kind: EVENT_KINDS.modelRetryScheduled,
      publicPayload: {
        runId: run.id,
        sessionId: run.sessionId,
        turnId: input.turnId,
        failedAttempt: input.attempt,
        errorCode: input.errorCode,
        retryInMs: input.delayMs,
      },
    });
  });
}
