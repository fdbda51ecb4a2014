import { inArray } from 'drizzle-orm';
import { delegationCalls } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { settleRun, type AdmissionGate } from '../runs/index.ts';

/**
 * The child runs of delegation calls that a cancelled coordinator never started (for the
 * runtime): each settles `cancelled` with its `run.cancelled`, as a queued run cancelled before
 * its admission does. Idempotent: a settled child keeps how it settled.
 */
export async function withdrawDelegationCalls({
  ctx,
  gate,
  input,
}: {
  ctx: ServiceContext;
  gate: AdmissionGate;
  input: { toolCallIds: readonly string[] };
}): Promise<void> {
  if (input.toolCallIds.length === 0) return;
  const rows = await ctx.db
    .select({ childRunId: delegationCalls.childRunId })
    .from(delegationCalls)
    .where(inArray(delegationCalls.toolCallId, [...input.toolCallIds]));
  for (const row of rows) await settleRun({ ctx, gate, input: { runId: row.childRunId, state: 'cancelled', failure: null, invocationFailed: false } });
}
