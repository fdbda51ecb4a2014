import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { loadRunVersion } from './load-run-context.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { expireOverdue } from '../tool-calls/index.ts';
import { readToolProgress, type ToolProgress } from '../tool-calls/index.ts';

/**
 * Where the tool calls of turn `turnId` stand now (for the runtime): first finalizes what ran
 * out of time (lapsed claim leases, expired approvals), then reads the turn's progress: whether
 * every call is final, what the run waits for, the next deadline, and the platform calls cleared
 * to run, with the version's Harness Operation keys when there are any. Idempotent.
 */
export async function checkToolProgress({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; turnId: string };
}): Promise<ToolProgress & { operationKeys: string[] }> {
  await expireOverdue(ctx, { runId: input.runId });
  const progress = await readToolProgress(ctx.db, input);
  if (progress.platformCalls.length === 0) return { ...progress, operationKeys: [] };
  // Which of the calls are Harness Operations (a sub-loop in the workflow, not an activity).
  const { agentVersion } = await loadRunVersion(ctx.db, input.runId);
  return { ...progress, operationKeys: (agentVersion.config as unknown as AgentConfig).harnessOperations.map((operation) => operation.key) };
}
