import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { loadRunVersion } from './load-run-context.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { expireOverdue } from '../tool-calls/index.ts';
import { readToolProgress, readToolProgressUnlessOverdue, type ToolProgress } from '../tool-calls/index.ts';

/**
 * Where the tool calls of turn `turnId` stand now (for the runtime): first finalizes what ran
 * out of time (lapsed claim leases, expired approvals; one read finds there is none in the common
 * case), then reads the turn's progress: whether
 * every call is final, what the run waits for, the next deadline, and the platform calls cleared
 * to run, with the version's Harness Operation keys and delegates when there are any. Idempotent.
 */
export async function checkToolProgress({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; turnId: string };
}): Promise<ToolProgress & { operationKeys: string[]; delegates: Array<{ key: string; maxParallel: number }> }> {
  // The common case in one statement: nothing overdue, so nothing to finalize first.
  let progress = await readToolProgressUnlessOverdue(ctx.db, input, ctx.clock.now());
  if (!progress) {
    await expireOverdue(ctx, { runId: input.runId });
    progress = await readToolProgress(ctx.db, input);
  }
  if (progress.platformCalls.length === 0) return { ...progress, operationKeys: [], delegates: [] };
  // Which of the calls are Harness Operations (a sub-loop in the workflow, not an activity), and
  // how many child runs of each delegate may run at once.
  const { agentVersion } = await loadRunVersion(ctx.db, input.runId);
  const config = agentVersion.config as unknown as AgentConfig;
  return {
    ...progress,
    operationKeys: config.harnessOperations.map((operation) => operation.key),
    delegates: config.delegates.map((delegate) => ({ key: delegate.key, maxParallel: delegate.maxParallel })),
  };
}
