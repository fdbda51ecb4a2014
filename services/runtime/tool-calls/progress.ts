import { and, asc, eq, exists, inArray, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { approvals, toolCalls } from '../../../db/schema/index.ts';
import { isToolCallFinal } from '../../../domain/tool-calls/states.ts';
import { approvalStatusesInto, toolCallStatusesInto } from '../../../domain/tool-calls/transitions.ts';

export type ToolProgress = {
  /** Every call of the turn is final (true for a turn without calls). */
  allFinal: boolean;
  /** `approval` while any call awaits a decision, else `tool` while a caller call is open. */
  waitingFor: 'approval' | 'tool' | null;
  /** The earliest live claim lease or pending approval expiry: when `expireOverdue` has work. */
  nextDeadlineAtMs: number | null;
  /** Platform calls cleared to run (`running`), in provider order, for the worker to execute. */
  platformCalls: Array<{ toolCallId: string; toolName: string; arguments: unknown }>;
};

/**
 * Where the tool calls of one model turn stand, for the run workflow (read-only; no actor). Call
 * `expireOverdue` first so lapsed leases and approvals are already final here.
 */
export async function readToolProgress(db: Executor, input: { runId: string; turnId: string }): Promise<ToolProgress> {
  return progressOf(await progressRows(db, input, null));
}

/**
 * `readToolProgress` when nothing of the run is overdue at `now` (no claim lease and no pending
 * approval past its time, which `expireOverdue` would finalize): the read and that check in one
 * statement; null when something is, or when the turn has no calls (the check rides on its rows).
 */
export async function readToolProgressUnlessOverdue(db: Executor, input: { runId: string; turnId: string }, now: Date): Promise<ToolProgress | null> {
  const rows = await progressRows(db, input, now);
  if (rows.length === 0 || rows.some((row) => row.runOverdue)) return null;
  return progressOf(rows);
}

function progressRows(db: Executor, input: { runId: string; turnId: string }, overdueAt: Date | null) {
  // What `expireOverdue` would finalize, anywhere in the run.
  const lapsedClaim = db
    .select({ one: sql`1` })
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.runId, input.runId),
        inArray(toolCalls.status, toolCallStatusesInto('expired')),
        lte(toolCalls.leaseExpiresAt, overdueAt ?? new Date(0)),
      ),
    );
  const lapsedApproval = db
    .select({ one: sql`1` })
    .from(approvals)
    .where(
      and(eq(approvals.runId, input.runId), inArray(approvals.status, approvalStatusesInto('expired')), lte(approvals.expiresAt, overdueAt ?? new Date(0))),
    );
  return db
    .select({
      id: toolCalls.id,
      toolName: toolCalls.toolName,
      owner: toolCalls.owner,
      status: toolCalls.status,
      safeArguments: toolCalls.safeArguments,
      leaseExpiresAt: toolCalls.leaseExpiresAt,
      approvalStatus: approvals.status,
      approvalExpiresAt: approvals.expiresAt,
      runOverdue: overdueAt ? sql<boolean>`(${exists(lapsedClaim)} or ${exists(lapsedApproval)})` : sql<boolean>`false`,
    })
    .from(toolCalls)
    .leftJoin(approvals, eq(approvals.toolCallId, toolCalls.id))
    .where(and(eq(toolCalls.runId, input.runId), eq(toolCalls.turnId, input.turnId)))
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
}

function progressOf(rows: Awaited<ReturnType<typeof progressRows>>): ToolProgress {
  const deadlines: number[] = [];
  for (const row of rows) {
    if (row.status === 'claimed' && row.leaseExpiresAt) deadlines.push(row.leaseExpiresAt.getTime());
    if (row.status === 'pending_approval' && row.approvalStatus === 'pending' && row.approvalExpiresAt) deadlines.push(row.approvalExpiresAt.getTime());
  }
  const awaitingApproval = rows.some((row) => row.status === 'pending_approval');
  const awaitingCaller = rows.some((row) => row.owner === 'caller' && (row.status === 'pending' || row.status === 'claimed'));
  return {
    allFinal: rows.every((row) => isToolCallFinal(row.status)),
    waitingFor: awaitingApproval ? 'approval' : awaitingCaller ? 'tool' : null,
    nextDeadlineAtMs: deadlines.length > 0 ? Math.min(...deadlines) : null,
    platformCalls: rows
      .filter((row) => row.status === 'running')
      .map((row) => ({ toolCallId: row.id, toolName: row.toolName, arguments: row.safeArguments ?? null })),
  };
}
