import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import { approvals, toolCalls } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { toApprovalResponse, toToolCallResponse, type PublicPendingWork } from './public.ts';

/** Each list of pending work holds at most this many entries, oldest first. */
export const PENDING_WORK_LIMIT = 200;

/**
 * Actionable work of a project (or of some runs): caller calls that are `pending` or `claimed`
 * under a live lease, and `pending` approvals before their `expiresAt`. Lapsed leases and
 * approvals are left out even before the runtime marks them expired: nobody can act on them.
 */
export async function readPendingWork(ctx: ServiceContext, scope: { projectId: string; runIds?: string[] }): Promise<PublicPendingWork> {
  if (scope.runIds && scope.runIds.length === 0) return { toolCalls: [], approvals: [] };
  const now = ctx.clock.now();
  const callRuns = scope.runIds ? inArray(toolCalls.runId, scope.runIds) : undefined;
  const calls = await ctx.db
    .select()
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.projectId, scope.projectId),
        eq(toolCalls.owner, 'caller'),
        or(eq(toolCalls.status, 'pending'), and(eq(toolCalls.status, 'claimed'), gt(toolCalls.leaseExpiresAt, now))),
        callRuns,
      ),
    )
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id))
    .limit(PENDING_WORK_LIMIT);
  const gates = await ctx.db
    .select({ approval: approvals, call: { sessionId: toolCalls.sessionId, toolName: toolCalls.toolName } })
    .from(approvals)
    .innerJoin(toolCalls, eq(toolCalls.id, approvals.toolCallId))
    .where(
      and(
        eq(approvals.projectId, scope.projectId),
        eq(approvals.status, 'pending'),
        gt(approvals.expiresAt, now),
        scope.runIds ? inArray(approvals.runId, scope.runIds) : undefined,
      ),
    )
    .orderBy(asc(approvals.createdAt), asc(approvals.id))
    .limit(PENDING_WORK_LIMIT);
  return { toolCalls: calls.map(toToolCallResponse), approvals: gates.map((row) => toApprovalResponse(row.approval, row.call)) };
}
