import { ValidationError } from '../../domain/errors.ts';
import type { RunStarterDeps } from '../../services/kernel/run-starter.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { createFollowUpRun, findSession, type PublicRun } from '../../services/runtime/runs/index.ts';
import { createSession } from '../../services/runtime/sessions/index.ts';

/**
 * A door's turn: the first message of a conversation opens a session of the agent with it as the
 * first run; a message naming a session of that agent is its follow-up run, under the
 * conversation-control rules of `POST /sessions/{id}/runs` (`ifBusy`; a busy session without it is
 * a 409). The idempotency key, when the caller's message has an id, makes a resent message the
 * same run.
 */
export async function startTurn({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { agentId: string; sessionId: string | null; text: string; idempotencyKey: string | null; ifBusy?: 'reject' | 'enqueue' | 'interrupt' };
}): Promise<{ sessionId: string; run: PublicRun | null }> {
  if (input.sessionId === null) {
    const session = await createSession({ ctx, deps, input: { agentId: input.agentId, initialMessage: input.text, idempotencyKey: input.idempotencyKey } });
    return { sessionId: session.id, run: session.run };
  }
  const session = await findSession({ ctx, input: { sessionId: input.sessionId } });
  if (session.agentId !== input.agentId) throw new ValidationError('The conversation belongs to another agent', { path: 'contextId' });
  const answer = await createFollowUpRun({
    ctx,
    deps,
    input: { sessionId: session.id, message: input.text, idempotencyKey: input.idempotencyKey, ...(input.ifBusy ? { ifBusy: input.ifBusy } : {}) },
  });
  // `enqueue` on a busy session keeps the turn pending: no run yet.
  return { sessionId: session.id, run: 'state' in answer ? answer : null };
}
