import { ConflictError } from '../../../domain/errors.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { createFollowUpRun } from '../runs/index.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDelegation } from './public.ts';

/**
 * `POST .../delegations/{id}/messages`: the next run of the child session with the caller's
 * message, only after the child's latest run settled (409 otherwise, as for any follow-up) and
 * while the relation is open (409 when closed). Answers `{delegationId, childSessionId,
 * childRunId, status: queued}`; `delegation.run_queued` is written with the run.
 */
export async function messageDelegation({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { sessionId: string; delegationId: string; message: string; idempotencyKey: string | null };
}): Promise<{ delegationId: string; childSessionId: string; childRunId: string; status: 'queued' }> {
  return withTransaction(ctx, async (tx) => {
    const delegation = await findDelegation({ ctx: tx, input, options: { forUpdate: true } });
    if (delegation.closedAt) throw new ConflictError('The delegation is closed', { delegationId: delegation.id });
    const run = await createFollowUpRun({
      ctx: tx,
      deps,
      input: { sessionId: delegation.childSessionId, message: input.message, idempotencyKey: input.idempotencyKey },
    });
    await appendProductEvent(tx, {
      organizationId: delegation.organizationId,
      projectId: delegation.projectId,
      aggregateType: 'session',
      aggregateId: delegation.coordinatorSessionId,
      kind: EVENT_KINDS.delegationRunQueued,
      publicPayload: {
        delegationId: delegation.id,
        sessionId: delegation.coordinatorSessionId,
        coordinatorSessionId: delegation.coordinatorSessionId,
        delegateKey: delegation.delegateKey,
        childSessionId: delegation.childSessionId,
        childRunId: run.id,
        via: 'api',
      },
    });
    return { delegationId: delegation.id, childSessionId: delegation.childSessionId, childRunId: run.id, status: 'queued' as const };
  });
}
