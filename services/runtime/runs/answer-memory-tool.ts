import { answerMemoryTool } from '../../configuration/memory-stores/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { PlatformToolOutcome } from '../tool-calls/index.ts';
import { loadRunVersion } from './load-run-context.ts';

/**
 * A run's `memory_list`/`memory_read`/`memory_write`/`memory_delete` call (for the runtime; no
 * actor), on the memory stores its session attached. Its writes are committed by the memory verb
 * (keyed by the call, so a retry writes once); the tool-call verb then records the outcome.
 */
export async function answerRunMemoryTool({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; toolCallId: string; toolName: string; arguments: unknown };
}): Promise<{ outcome: PlatformToolOutcome }> {
  const { run, session } = await loadRunVersion(ctx.db, input.runId);
  const answer = await answerMemoryTool({
    ctx,
    input: {
      run: { id: run.id, sessionId: session.id, organizationId: run.organizationId, projectId: run.projectId },
      stores: session.memoryStores,
      toolCallId: input.toolCallId,
      toolName: input.toolName,
      arguments: input.arguments,
    },
  });
  return { outcome: answer.ok ? { status: 'success', value: answer.value } : { status: 'failure', code: 'tool_failed', message: answer.message } };
}
