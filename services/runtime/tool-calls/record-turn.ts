import { and, eq } from 'drizzle-orm';
import { messages } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ModelToolCall } from '../../../domain/runs/transcript.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { recordToolCalls, type RecordedToolCall } from './record.ts';

/**
 * Records the tool calls the model asked for in turn `turnId` (for the runtime), read from the
 * turn's stored assistant message, through `recordToolCalls` (validation, approvals, retry
 * counts). Idempotent like it. 404 when the turn has no assistant message (or the run is gone).
 */
export async function recordTurnToolCalls({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; turnId: string };
}): Promise<{ calls: RecordedToolCall[] }> {
  // A fork's copy of this message exists only once the run has settled, after its tool calls were recorded.
  const [assistant] = await ctx.db
    .select({ content: messages.content })
    .from(messages)
    .where(and(eq(messages.runId, input.runId), eq(messages.stepKey, input.turnId)));
  if (!assistant) throw new NotFoundError('The turn has no assistant message');
  const calls = ((assistant.content.toolCalls as ModelToolCall[] | undefined) ?? []).map((call) => ({
    providerCallId: call.id,
    name: call.name,
    arguments: call.arguments,
    argumentsText: call.argumentsText,
  }));
  return recordToolCalls(ctx, { runId: input.runId, turnId: input.turnId, calls });
}
