import { eq } from 'drizzle-orm';
import { toolCalls } from '../../../db/schema/index.ts';
import { TOOL_LEASE_MS } from '../../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertLiveClaim } from './assert-live-claim.ts';
import { findToolCall } from './load.ts';
import { toToolCallResponse, type PublicToolCall } from './public.ts';

/**
 * Extends the lease of a live claim to `TOOL_LEASE_MS` from now (`POST /tool-calls/{id}/renew`),
 * for the claiming principal with the current fence only. No product event: the status does not
 * change, and the runtime's earlier timer simply finds nothing overdue and re-reads the new
 * deadline.
 */
export async function renewToolCallLease({ ctx, input }: { ctx: ServiceContext; input: { toolCallId: string; fence: string } }): Promise<PublicToolCall> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const call = await findToolCall(tx, input.toolCallId, { forUpdate: true });
    const now = tx.clock.now();
    assertLiveClaim(call, { fence: input.fence, principalId: actor.principalId }, now);
    const [updated] = await tx.db
      .update(toolCalls)
      .set({ leaseExpiresAt: new Date(now.getTime() + TOOL_LEASE_MS), updatedAt: now })
      .where(eq(toolCalls.id, call.id))
      .returning();
    return toToolCallResponse(updated!);
  });
}
