import { randomInt } from 'node:crypto';
import { RUN_SIGNALS } from '../../../domain/runs/workflow.ts';
import { eq } from 'drizzle-orm';
import { runs, toolCalls } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { FENCE_LIMIT } from '../../../domain/tool-calls/result-envelope.ts';
import { TOOL_LEASE_MS } from '../../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toolCallChangedEvent } from './events.ts';
import { findToolCall } from './load.ts';
import { toToolCallClaimResponse, type PublicToolCallClaim, type ToolCallRow } from './public.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { moveToolCall } from '../../../domain/tool-calls/transitions.ts';

/**
 * Claims a `pending` caller tool call for the acting integration (`POST /tool-calls/{id}/claim`):
 * `claimed` by the acting principal under a new fence (random and never the previous one, so every
 * earlier holder is stale and no one can count or guess it) with a lease of `TOOL_LEASE_MS`,
 * answered with the arguments to run the tool with. Only this principal can renew, release or
 * submit under the claim (`assertLiveClaim`). Platform calls, calls awaiting approval, calls
 * claimed by someone else (a live lease), lapsed claims and final calls are 409s. The runtime is
 * woken after commit so it arms a timer for the new lease.
 */
export async function claimToolCall({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { toolCallId: string };
}): Promise<PublicToolCallClaim> {
  return withTransaction(ctx, async (tx) => {
    const actor = requireActor(tx);
    const call = await findToolCall(tx, input.toolCallId, { forUpdate: true });
    const now = tx.clock.now();
    if (call.owner !== 'caller')
      throw new ConflictError('Platform tool calls are run by the runtime and cannot be claimed', { toolCallId: call.id, owner: call.owner });
    if (call.status === 'claimed') {
      const live = call.leaseExpiresAt !== null && call.leaseExpiresAt.getTime() > now.getTime();
      if (live)
        throw new ConflictError('The tool call is already claimed', {
          toolCallId: call.id,
          status: call.status,
          leaseExpiresAt: call.leaseExpiresAt!.toISOString(),
        });
      throw new ConflictError('The claim lease has expired', { toolCallId: call.id, status: 'expired', reason: 'lease_expired' });
    }
    if (call.status !== 'pending') throw new ConflictError(`A ${call.status} tool call cannot be claimed`, { toolCallId: call.id, status: call.status });
    const [run] = await tx.db.select({ state: runs.state }).from(runs).where(eq(runs.id, call.runId));
    if (!run || isSettled(run.state)) throw new ConflictError('The run of this tool call has ended', { toolCallId: call.id, runState: run?.state ?? null });

    // The row is locked: the claimed row is computed here and its update rides with the event.
    const claim = {
      status: moveToolCall(call.status, 'claimed'),
      fence: newFence(call.fence),
      leaseExpiresAt: new Date(now.getTime() + TOOL_LEASE_MS),
      claimedByPrincipalId: actor.principalId,
      updatedAt: now,
    };
    const updated: ToolCallRow = { ...call, ...claim };
    await holdWrite(tx, tx.db.update(toolCalls).set(claim).where(eq(toolCalls.id, call.id)));
    await appendProductEvent(tx, { organizationId: call.organizationId, projectId: call.projectId, ...toolCallChangedEvent(updated, call.status) });
    // A wake-up hint only (there is no dedicated claim signal): the workflow re-reads Postgres
    // and sets its timer to the new lease deadline.
    tx.afterCommit.push(() => deps.runStarter.notify(call.runId, RUN_SIGNALS.toolResultSubmitted));
    return toToolCallClaimResponse(updated);
  });
}

/**
 * A fence drawn uniformly from [1, FENCE_LIMIT) (about 50 bits; two draws because `randomInt`
 * spans at most 2^48), never the previous fence. Not a counter: a counter's first fence is "1"
 * on every call, there for any key to guess (issue 28).
 */
function newFence(previous: number): number {
  const low = 10 ** 7;
  for (;;) {
    const fence = randomInt(FENCE_LIMIT / low) * low + randomInt(low);
    if (fence !== 0 && fence !== previous) return fence;
  }
}
