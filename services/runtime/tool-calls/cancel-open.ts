import { and, asc, eq, inArray } from 'drizzle-orm';
import { approvals, runs, toolCalls } from '../../../db/schema/index.ts';
import { TOOL_CANCELLED, toolFailure } from '../../../domain/tool-calls/failures.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents, type ProductEventDraft } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { approvalExpiredEvent, toolCallChangedEvent } from './events.ts';
import { approvalStatusesInto, moveToolCall, toolCallStatusesInto } from '../../../domain/tool-calls/transitions.ts';

/**
 * Closes every open tool call of a run that is ending (cancelled, timed out or failed; for the
 * runtime, no actor): open calls become `cancelled` (failure `tool_cancelled`), so a late claim,
 * result or decision is a 409; pending approvals become `expired` — no longer decidable, and
 * nobody decided them (event reason `run_ended`). Idempotent: nothing open, nothing written.
 */
export async function cancelOpenToolCalls(ctx: ServiceContext, input: { runId: string }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const open = await tx.db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, input.runId), inArray(toolCalls.status, toolCallStatusesInto('cancelled'))))
      .orderBy(asc(toolCalls.id))
      .for('update');
    if (open.length === 0) return;
    const now = tx.clock.now();
    const events: ProductEventDraft[] = [];
    const expiredApprovals = await tx.db
      .update(approvals)
      .set({ status: 'expired' })
      .where(
        and(
          inArray(
            approvals.toolCallId,
            open.map((call) => call.id),
          ),
          inArray(approvals.status, approvalStatusesInto('expired')),
        ),
      )
      .returning();
    for (const approval of expiredApprovals) events.push(approvalExpiredEvent(approval, 'run_ended'));
    for (const call of open) {
      const [updated] = await tx.db
        .update(toolCalls)
        .set({
          status: moveToolCall(call.status, 'cancelled'),
          failure: toolFailure(TOOL_CANCELLED, 'The run ended before the tool call finished'),
          leaseExpiresAt: null,
          completedAt: now,
          updatedAt: now,
        })
        .where(eq(toolCalls.id, call.id))
        .returning();
      events.push(toolCallChangedEvent(updated!, call.status));
    }
    const [run] = await tx.db.select({ organizationId: runs.organizationId, projectId: runs.projectId }).from(runs).where(eq(runs.id, input.runId));
    if (run) await appendProductEvents(tx, { organizationId: run.organizationId, projectId: run.projectId, events });
  });
}
