import { inArray } from 'drizzle-orm';
import { delegationCalls } from '../../../db/schema/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { settleRun, type AdmissionGate } from '../runs/index.ts';
import { startDelegationCall, type DelegationStart } from './start-call.ts';

/**
 * The delegation calls of a turn queued together (for the runtime), in call order, each as
 * `startDelegationCall` does it (its own transaction, idempotent per call), so that every child
 * of a fan-out is a `queued` run from the start and the ones waiting for a place are visible.
 */
export async function startDelegationCalls({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring };
  input: { runId: string; toolCallIds: readonly string[] };
}): Promise<Array<{ toolCallId: string; start: DelegationStart }>> {
  const starts: Array<{ toolCallId: string; start: DelegationStart }> = [];
  for (const toolCallId of input.toolCallIds)
    starts.push({ toolCallId, start: await startDelegationCall({ ctx, deps, input: { runId: input.runId, toolCallId } }) });
  return starts;
}

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
