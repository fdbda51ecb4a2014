import { and, eq } from 'drizzle-orm';
import { pendingTurns } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError } from '../../../domain/errors.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { withdrawnEvent } from './enqueue-turn.ts';
import { findSession } from './load-session.ts';

/**
 * Withdraws a pending turn that has not become a run (`DELETE /sessions/{id}/pending-turns/{turnId}`),
 * under the session row lock the hand-off also takes, so it is either withdrawn or started, never
 * both. Withdrawing one already withdrawn changes nothing; one that became a run is a 409 naming
 * that run. 404 when the session or the turn is not there.
 *
 * The principal who queued the turn withdraws it with the route's `run:create`; anyone else also
 * needs `run:cancel`, what cancelling that principal's run would need (a 403 naming it otherwise).
 */
export async function withdrawPendingTurn({ ctx, input }: { ctx: ServiceContext; input: { sessionId: string; turnId: string } }): Promise<void> {
  const actor = requireActor(ctx);
  await withTransaction(ctx, async (tx) => {
    const session = await findSession({ ctx: tx, input: { sessionId: input.sessionId }, options: { forUpdate: true } });
    const [turn] = await tx.db
      .select()
      .from(pendingTurns)
      .where(and(eq(pendingTurns.id, input.turnId), eq(pendingTurns.sessionId, session.id)))
      .for('update');
    if (!turn) throw new NotFoundError('No pending turn with that id in this session');
    if (turn.createdByPrincipalId !== actor.principalId) assertHasScopes(actor.scopes, ['run:cancel']);
    if (turn.state === 'withdrawn') return;
    if (turn.state === 'started') throw new ConflictError('That turn has already become a run', { runId: turn.runId });
    await tx.db.update(pendingTurns).set({ state: 'withdrawn', withdrawnReason: 'withdrawn', settledAt: tx.clock.now() }).where(eq(pendingTurns.id, turn.id));
    await recordAudit(tx, { action: 'session.input_withdrawn', targetType: 'session', targetId: session.id, details: { pendingTurnId: turn.id } });
    await appendProductEvents(tx, { organizationId: session.organizationId, projectId: session.projectId, events: [withdrawnEvent(turn, 'withdrawn')] });
  });
}
