import { RUN_SIGNALS } from '../../../domain/runs/workflow.ts';
import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { approvals, toolCalls } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { toolFailure } from '../../../domain/tool-calls/failures.ts';
import { APPROVAL_NOTE_MAX } from '../../../domain/tool-calls/states.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { approvalDecidedEvent, toolCallChangedEvent } from '../tool-calls/index.ts';
import { toApprovalResponse, type PublicApproval } from '../tool-calls/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { moveApproval, moveToolCall } from '../../../domain/tool-calls/transitions.ts';

export const ApprovalDecision = v.strictObject({
  status: v.picklist(['approved', 'denied'], 'status must be "approved" or "denied"'),
  note: v.optional(v.pipe(v.string(), v.maxLength(APPROVAL_NOTE_MAX, `note must be at most ${APPROVAL_NOTE_MAX} characters`))),
});
export type ApprovalDecision = v.InferOutput<typeof ApprovalDecision>;

/**
 * Decides a pending approval (`POST /approvals/{id}/decision`), once. Approval moves the gated
 * call on (`pending` for a caller tool, `running` for a platform tool); denial makes it `denied`
 * with `approval_denied` (not retried). Repeating the decision already taken answers the
 * approval unchanged (the first note stays); a different decision, or any decision once the
 * approval expired (`expiresAt` passed, or its run ended), is a 409. `expiresAt` never changes.
 * Events `approval.decided` and `tool_call.<status>`, an audit entry (without the note) and, after
 * commit, a wake of the run.
 */
export async function decideApproval({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { approvalId: string } & ApprovalDecision;
}): Promise<PublicApproval> {
  const parsed = v.safeParse(ApprovalDecision, { status: input.status, note: input.note });
  if (!parsed.success) throw new ValidationError(parsed.issues[0].message, { path: `body.${parsed.issues[0].path?.[0]?.key ?? 'status'}` });
  const decision = parsed.output;

  return withTransaction(ctx, async (tx) => {
    const actor = requireActor(tx);
    const [ref] = await tx.db
      .select({ toolCallId: approvals.toolCallId })
      .from(approvals)
      .where(and(eq(approvals.id, input.approvalId), eq(approvals.projectId, actor.projectId)));
    if (!ref) throw new NotFoundError('No approval with that id in this project');
    // The call row first, then the approval: the order every tool-call verb locks in.
    const [call] = await tx.db.select().from(toolCalls).where(eq(toolCalls.id, ref.toolCallId)).for('update');
    const [approval] = await tx.db.select().from(approvals).where(eq(approvals.id, input.approvalId)).for('update');
    if (!call || !approval) throw new NotFoundError('No approval with that id in this project');

    const now = tx.clock.now();
    if (approval.status === decision.status) return toApprovalResponse(approval, call);
    const lapsed = approval.status === 'pending' && approval.expiresAt.getTime() <= now.getTime();
    if (approval.status === 'expired' || lapsed) {
      // A lapsed approval turns `expired` when the runtime's expireOverdue runs at `expiresAt`; a
      // 409 rolls this request back, so it is reported as expired without writing it here.
      throw new ConflictError('The approval has expired', { approvalId: approval.id, status: 'expired', expiresAt: approval.expiresAt.toISOString() });
    }
    if (approval.status !== 'pending')
      throw new ConflictError(`The approval was already ${approval.status}`, { approvalId: approval.id, status: approval.status });
    if (call.status !== 'pending_approval')
      throw new ConflictError(`The gated tool call is ${call.status}`, { approvalId: approval.id, toolCallStatus: call.status });

    const [decided] = await tx.db
      .update(approvals)
      .set({ status: moveApproval(approval.status, decision.status), note: decision.note ?? null, decidedByPrincipalId: actor.principalId, decidedAt: now })
      .where(eq(approvals.id, approval.id))
      .returning();
    const next =
      decision.status === 'approved'
        ? { status: moveToolCall(call.status, call.owner === 'caller' ? 'pending' : 'running'), updatedAt: now }
        : { status: moveToolCall(call.status, 'denied'), failure: toolFailure('approval_denied', 'The approval was denied'), completedAt: now, updatedAt: now };
    const [moved] = await tx.db.update(toolCalls).set(next).where(eq(toolCalls.id, call.id)).returning();

    await recordAudit(tx, {
      action: 'approval.decided',
      targetType: 'approval',
      targetId: approval.id,
      details: { toolCallId: call.id, runId: call.runId, toolName: call.toolName, status: decision.status, noted: decision.note !== undefined },
    });
    await appendProductEvents(tx, {
      organizationId: call.organizationId,
      projectId: call.projectId,
      events: [approvalDecidedEvent(decided!), toolCallChangedEvent(moved!, call.status)],
    });
    tx.afterCommit.push(() => deps.runStarter.notify(call.runId, RUN_SIGNALS.approvalDecided));
    return toApprovalResponse(decided!, call);
  });
}
