import type { ServiceContext } from '../service-context.ts';
import { expireOverdue } from './expire-overdue.ts';
import { readToolProgress, type ToolProgress } from './progress.ts';

/**
 * Where the tool calls of turn `turnId` stand now (for the runtime): first finalizes what ran
 * out of time (lapsed claim leases, expired approvals), then reads the turn's progress: whether
 * every call is final, what the run waits for, the next deadline, and the platform calls cleared
 * to run. Idempotent.
 */
export async function checkToolProgress({ ctx, input }: { ctx: ServiceContext; input: { runId: string; turnId: string } }): Promise<ToolProgress> {
  await expireOverdue(ctx, { runId: input.runId });
  return readToolProgress(ctx.db, input);
}
