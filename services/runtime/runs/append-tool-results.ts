import { and, asc, eq } from 'drizzle-orm';
import { toolCalls } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import type { ToolCallFailure } from '../../../domain/tool-calls/failures.ts';
import type { StoredSafeResult } from '../../../domain/tool-calls/result-envelope.ts';
import { isToolCallFinal } from '../../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendRunMessage } from './append-message.ts';
import { threadOfTurn } from './operation-threads.ts';
import { transitionRun } from './transition.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { ToolCallRow } from '../tool-calls/index.ts';

/** The stable step key of a call's result message (idempotency of `appendRunMessage`). */
export const toolResultStepKey = (toolCallId: string) => `tool:${toolCallId}`;

/**
 * Appends one `tool` message per call of the turn, in provider order, once every call is final
 * (for the runtime; no actor): the validated result value, or the failure `{code, message, path?}` with `isError`
 * with `isError` for anything else. `toolCallId` in the content is the provider's id, which is
 * what the model pairs results with. Idempotent per call (step `tool:<toolCallId>`). A turn with
 * an open call is a conflict: the workflow appends only after `readToolProgress` says `allFinal`.
 */
export async function appendToolResultMessages({ ctx, input }: { ctx: ServiceContext; input: { runId: string; turnId: string } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const rows = await tx.db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, input.runId), eq(toolCalls.turnId, input.turnId)))
      .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
    const open = rows.filter((row) => !isToolCallFinal(row.status));
    if (open.length > 0)
      throw new ConflictError('The turn still has open tool calls', { runId: input.runId, turnId: input.turnId, open: open.map((row) => row.id) });
    const threadId = await threadOfTurn(tx.db, input.turnId);
    for (const row of rows) {
      await appendRunMessage(tx, {
        runId: input.runId,
        stepKey: toolResultStepKey(row.id),
        role: 'tool',
        content: toolMessageContent(row),
        ...(threadId ? { threadId } : {}),
      });
    }
  });
}

/**
 * Once every call of the turn is final, for the runtime: the run `running` again and the calls'
 * results in the transcript, in one transaction that locks the run's row first (the runtime's
 * lock order: the run, then its thread). A run settled meanwhile refuses (ConflictError) before
 * anything is appended; the transcript builder skips calls left without a result.
 */
export async function resumeRunWithToolResults({ ctx, input }: { ctx: ServiceContext; input: { runId: string; turnId: string } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await transitionRun({ ctx: tx, input: { runId: input.runId, to: 'running' } });
    await appendToolResultMessages({ ctx: tx, input });
  });
}

function toolMessageContent(row: ToolCallRow): Record<string, unknown> {
  if (row.status === 'succeeded') {
    const result = row.safeResult as StoredSafeResult;
    return { toolCallId: row.providerCallId, toolName: row.toolName, result: result.value, isError: false };
  }
  const failure = (row.failure as ToolCallFailure | null) ?? { code: 'tool_failed', message: 'The tool call did not complete' };
  const error: Record<string, unknown> = { code: failure.code, message: failure.message };
  if (failure.path !== undefined) error.path = failure.path;
  // The adapters render failures in each vendor's error form, so the failure is stored bare.
  return { toolCallId: row.providerCallId, toolName: row.toolName, result: error, isError: true };
}
