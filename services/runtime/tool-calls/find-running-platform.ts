import { and, eq } from 'drizzle-orm';
import { toolCalls } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/**
 * The platform call `toolCallId` of run `runId` when it is cleared to run (`running`), with its
 * validated arguments; null when an earlier attempt already completed it (or it is gone), so a
 * retried step runs nothing twice.
 */
export async function findRunningPlatformCall({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; toolCallId: string };
}): Promise<{ toolCallId: string; toolName: string; arguments: unknown } | null> {
  const [call] = await ctx.db
    .select({ id: toolCalls.id, toolName: toolCalls.toolName, owner: toolCalls.owner, status: toolCalls.status, safeArguments: toolCalls.safeArguments })
    .from(toolCalls)
    .where(and(eq(toolCalls.id, input.toolCallId), eq(toolCalls.runId, input.runId)));
  if (!call || call.owner !== 'platform' || call.status !== 'running') return null;
  return { toolCallId: call.id, toolName: call.toolName, arguments: call.safeArguments };
}
