import { and, eq } from 'drizzle-orm';
import { approvals, toolCalls } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { findRun } from '../runs/index.ts';
import { toApprovalResponse, type PublicApproval } from '../tool-calls/index.ts';

/** The approvals of one run of the actor's project (`GET /approvals?runId=`), oldest first. */
export async function listApprovals({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; limit: number; cursor?: string | undefined };
}): Promise<Page<PublicApproval>> {
  const run = await findRun(ctx, input.runId);
  const page = keysetPage(approvals, input.cursor, 'asc');
  const rows = await ctx.db
    .select({ approval: approvals, call: { sessionId: toolCalls.sessionId, toolName: toolCalls.toolName } })
    .from(approvals)
    .innerJoin(toolCalls, eq(toolCalls.id, approvals.toolCallId))
    .where(and(eq(approvals.projectId, run.projectId), eq(approvals.runId, run.id), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const paged = toPage(
    rows.map((row) => ({ ...row, createdAt: row.approval.createdAt, id: row.approval.id })),
    input.limit,
    (row) => toApprovalResponse(row.approval, row.call),
  );
  return paged;
}
