import { eq } from 'drizzle-orm';
import { toolCalls } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertLiveClaim } from './assert-live-claim.ts';
import { toolCallChangedEvent } from './events.ts';
import { findToolCall } from './load.ts';
import { toToolCallResponse, type PublicToolCall } from './public.ts';
import { moveToolCall } from '../../../domain/tool-calls/transitions.ts';

/**
 * Gives a live claim back (`POST /tool-calls/{id}/release`): the call is `pending` again with no
 * lease, ready for another claim. The fence stays, so the releasing holder's fence is stale from
 * now on (the next claim draws a different one).
 */
export async function releaseToolCall({ ctx, input }: { ctx: ServiceContext; input: { toolCallId: string; fence: string } }): Promise<PublicToolCall> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const call = await findToolCall(tx, input.toolCallId, { forUpdate: true });
    const now = tx.clock.now();
    assertLiveClaim(call, { fence: input.fence, principalId: actor.principalId }, now);
    const [updated] = await tx.db
      .update(toolCalls)
      .set({ status: moveToolCall(call.status, 'pending'), leaseExpiresAt: null, claimedByPrincipalId: null, updatedAt: now })
      .where(eq(toolCalls.id, call.id))
      .returning();
    await appendProductEvent(tx, { organizationId: call.organizationId, projectId: call.projectId, ...toolCallChangedEvent(updated!, call.status) });
    return toToolCallResponse(updated!);
  });
}
