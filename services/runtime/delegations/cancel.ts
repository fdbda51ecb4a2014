import { eq } from 'drizzle-orm';
import { delegations, runs, sessions } from '../../../db/schema/index.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { cancelRun } from '../runs/index.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDelegation, toPublicDelegations, type PublicDelegation } from './public.ts';

/**
 * `POST .../delegations/{id}/cancel`: closes the relation to further messages (both through the
 * API and `message_agent`) and requests cancellation of the child's latest run when it is
 * unsettled. Repeats answer the closed relation; `delegation.closed` is written once.
 */
export async function cancelDelegation({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { sessionId: string; delegationId: string };
}): Promise<PublicDelegation> {
  return withTransaction(ctx, async (tx) => {
    let delegation = await findDelegation({ ctx: tx, input, options: { forUpdate: true } });
    const closing = !delegation.closedAt;
    if (closing) {
      const [closed] = await tx.db.update(delegations).set({ closedAt: tx.clock.now() }).where(eq(delegations.id, delegation.id)).returning();
      delegation = closed!;
    }
    // The child run's row before the project's event log, as every run step takes them: an
    // event appended first would hold the log's lock while waiting for a step that holds the run
    // and appends (a deadlock).
    const [child] = await tx.db.select({ latestRunId: sessions.latestRunId }).from(sessions).where(eq(sessions.id, delegation.childSessionId));
    if (child?.latestRunId) {
      const [latest] = await tx.db.select({ state: runs.state }).from(runs).where(eq(runs.id, child.latestRunId));
      if (latest && !isSettled(latest.state)) await cancelRun({ ctx: tx, deps, input: { runId: child.latestRunId } });
    }
    if (closing) {
      await appendProductEvent(tx, {
        organizationId: delegation.organizationId,
        projectId: delegation.projectId,
        aggregateType: 'session',
        aggregateId: delegation.coordinatorSessionId,
        kind: EVENT_KINDS.delegationClosed,
        publicPayload: {
          delegationId: delegation.id,
          sessionId: delegation.coordinatorSessionId,
          coordinatorSessionId: delegation.coordinatorSessionId,
          delegateKey: delegation.delegateKey,
          childSessionId: delegation.childSessionId,
        },
      });
    }
    const [shown] = await toPublicDelegations({ ctx: tx, input: { rows: [delegation] } });
    return shown!;
  });
}
