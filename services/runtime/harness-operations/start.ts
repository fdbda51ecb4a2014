import { eq } from 'drizzle-orm';
import { harnessOperationCalls, threads, toolCalls } from '../../../db/schema/index.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { operationTaskStepKey } from '../../../domain/runs/harness-operations.ts';
import { appendRunMessage } from '../runs/index.ts';
import { loadRunVersion } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findOperationCall } from '../runs/index.ts';

/**
 * Starts the sub-loop of a Harness Operation call (for the runtime; no actor): its own thread,
 * with the call's `task` as the first user message, recorded against the tool call. Idempotent:
 * a started call answers as it is. Returns the operation's key and `timeoutMs` for the workflow.
 */
export async function startHarnessOperation({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; toolCallId: string };
}): Promise<{ timeoutMs: number; operationKey: string }> {
  const { run, agentVersion } = await loadRunVersion(ctx.db, input.runId);
  const [call] = await ctx.db.select().from(toolCalls).where(eq(toolCalls.id, input.toolCallId));
  if (!call || call.runId !== run.id) throw new NotFoundError('No tool call with that id in this run');
  const operation = (agentVersion.config as unknown as AgentConfig).harnessOperations.find((entry) => entry.key === call.toolName);
  if (!operation) throw new Error(`tool call ${call.id} names no Harness Operation of the pinned version`);
  const started = { timeoutMs: operation.timeoutMs, operationKey: operation.key };
  if (await findOperationCall(ctx.db, call.id)) return started;
  return withTransaction(ctx, async (tx) => {
    const [thread] = await tx.db.insert(threads).values({ organizationId: run.organizationId, projectId: run.projectId }).returning();
    const inserted = await tx.db
      .insert(harnessOperationCalls)
      .values({
        toolCallId: call.id,
        organizationId: run.organizationId,
        projectId: run.projectId,
        runId: run.id,
        operationKey: operation.key,
        threadId: thread!.id,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) throw new Error(`operation call ${call.id} was started concurrently`);
    const task = String((call.safeArguments as { task?: unknown } | null)?.task ?? '');
    await appendRunMessage(tx, { runId: run.id, stepKey: operationTaskStepKey(call.id), role: 'user', content: { text: task }, threadId: thread!.id });
    return started;
  });
}
