import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import * as v from 'valibot';
import { approvals, runs, toolCalls } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { toolFailure } from '../../../domain/tool-calls/failures.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents, type ProductEventDraft } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { approvalExpiredEvent, toolCallChangedEvent } from './events.ts';
import { approvalStatusesInto, toolCallStatusesInto } from '../../../domain/tool-calls/transitions.ts';

/**
 * Finalizes what ran out of time in a run, at `ctx.clock.now()` (for the runtime; no actor):
 * claimed calls whose lease passed become `expired` (`tool_expired`); pending approvals past
 * `expiresAt` become `expired` and their calls `denied` (`approval_expired`). Unclaimed `pending`
 * calls never expire on their own — the run's deadline bounds them. Idempotent: nothing
 * overdue, nothing written. Call rows are locked before approval rows, as every verb does.
 */
export async function expireOverdue(ctx: ServiceContext, input: { runId: string }): Promise<void> {
  if (!v.is(v.pipe(v.string(), v.uuid()), input.runId)) throw new ValidationError('runId must be a UUID');
  await withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const lapsed = await tx.db
      .update(toolCalls)
      .set({
        status: 'expired',
        failure: toolFailure('tool_expired', 'The claim lease ended before a result was submitted'),
        leaseExpiresAt: null,
        completedAt: now,
        updatedAt: now,
      })
      .where(and(eq(toolCalls.runId, input.runId), inArray(toolCalls.status, toolCallStatusesInto('expired')), lte(toolCalls.leaseExpiresAt, now)))
      .returning();
    const events: ProductEventDraft[] = lapsed.map((row) => toolCallChangedEvent(row, 'claimed'));

    const overdue = await tx.db
      .select({ toolCallId: approvals.toolCallId })
      .from(approvals)
      .where(and(eq(approvals.runId, input.runId), inArray(approvals.status, approvalStatusesInto('expired')), lte(approvals.expiresAt, now)));
    if (overdue.length > 0) {
      const callIds = overdue.map((row) => row.toolCallId);
      await tx.db.select({ id: toolCalls.id }).from(toolCalls).where(inArray(toolCalls.id, callIds)).orderBy(asc(toolCalls.id)).for('update');
      const expired = await tx.db
        .update(approvals)
        .set({ status: 'expired' })
        .where(and(inArray(approvals.toolCallId, callIds), inArray(approvals.status, approvalStatusesInto('expired')), lte(approvals.expiresAt, now)))
        .returning();
      for (const approval of expired) {
        const [call] = await tx.db
          .update(toolCalls)
          .set({
            status: 'denied',
            failure: toolFailure('approval_expired', 'The approval expired before anyone decided it'),
            completedAt: now,
            updatedAt: now,
          })
          .where(and(eq(toolCalls.id, approval.toolCallId), inArray(toolCalls.status, toolCallStatusesInto('denied'))))
          .returning();
        events.push(approvalExpiredEvent(approval, 'deadline'));
        if (call) events.push(toolCallChangedEvent(call, 'pending_approval'));
      }
    }
    if (events.length === 0) return;
    const [run] = await tx.db.select({ organizationId: runs.organizationId, projectId: runs.projectId }).from(runs).where(eq(runs.id, input.runId));
    if (run) await appendProductEvents(tx, { organizationId: run.organizationId, projectId: run.projectId, events });
  });
}
