import { and, desc, eq } from 'drizzle-orm';
import { messages } from '../../../db/schema/index.ts';
import { parseOperationResult, type HarnessOperationExecutionRecord } from '../../../domain/runs/harness-operations.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { completePlatformToolCall, type CompletedToolCall, type PlatformToolOutcome } from '../tool-calls/index.ts';
import { findOperationCall } from '../runs/index.ts';

export type HarnessOperationEnd =
  | { kind: 'reply' }
  | { kind: 'failed'; reason: 'turn_budget_exhausted' | 'model_failed'; explanation: string }
  | { kind: 'timed_out'; timeoutMs: number }
  | { kind: 'nested' };

/**
 * Records how a Harness Operation call ended, as the result of its tool call (for the runtime):
 * the sub-loop's final answer parsed as a JSON object, which the tool-call verb validates against
 * the operation's `resultSchema` (a mismatch is `invalid_tool_result` with its path); an answer
 * that is not a JSON object, a timeout or a failed sub-loop is `platform_tool_failed` with a
 * `reason`. The parent model sees every one as a tool error; none fails the run by itself.
 * Idempotent: a call already final is returned as it is.
 */
export async function finishHarnessOperation({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; toolCallId: string; operationKey: string; end: HarnessOperationEnd; turns: number; durationMs: number };
}): Promise<CompletedToolCall> {
  const call = await findOperationCall(ctx.db, input.toolCallId);
  const execution = (failureReason: HarnessOperationExecutionRecord['failureReason']): HarnessOperationExecutionRecord => ({
    kind: 'harness_operation',
    operationKey: input.operationKey,
    threadId: call?.threadId ?? null,
    turns: input.turns,
    durationMs: input.durationMs,
    failureReason,
  });
  const fail = (reason: NonNullable<HarnessOperationExecutionRecord['failureReason']>, message: string) =>
    completePlatformToolCall({
      ctx,
      input: { toolCallId: input.toolCallId, outcome: { status: 'failure', code: 'platform_tool_failed', message, reason }, execution: execution(reason) },
    });
  const { end } = input;
  if (end.kind === 'nested') return fail('nested_operation', 'Harness Operations cannot be called from inside an operation.');
  if (end.kind === 'timed_out') return fail('timed_out', `The operation "${input.operationKey}" did not finish within its ${end.timeoutMs} ms.`);
  if (end.kind === 'failed') return fail(end.reason, `The operation "${input.operationKey}" failed: ${end.explanation}`);

  const [answer] = call
    ? await ctx.db
        .select({ content: messages.content })
        .from(messages)
        .where(and(eq(messages.threadId, call.threadId), eq(messages.role, 'assistant')))
        .orderBy(desc(messages.sequence))
        .limit(1)
    : [];
  const result = parseOperationResult(String(answer?.content.text ?? ''));
  if (!result) return fail('invalid_result', `The operation "${input.operationKey}" answered something that is not a JSON object.`);
  const outcome: PlatformToolOutcome = { status: 'success', value: result };
  const completed = await completePlatformToolCall({ ctx, input: { toolCallId: input.toolCallId, outcome, execution: execution(null) } });
  // A schema mismatch is recorded by the verb as invalid_tool_result; the record says so too.
  return completed;
}
