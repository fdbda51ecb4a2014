import { RUN_SIGNALS } from '../../../domain/runs/workflow.ts';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { toolCalls } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { describeJsonProblem, unstorableJsonPart } from '../../../domain/json-limits.ts';
import { toolFailure, type ToolCallFailure } from '../../../domain/tool-calls/failures.ts';
import { Fence, SafeResultInput, TOOL_RESULT_VERSION, type StoredSafeResult } from '../../../domain/tool-calls/result-envelope.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertLiveClaim } from './assert-live-claim.ts';
import { toolCallChangedEvent } from './events.ts';
import { findToolCall } from './load.ts';
import { loadRunTools } from './run-tools.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { validateToolValue } from './validate-tool-value.ts';
import { moveToolCall } from '../../../domain/tool-calls/transitions.ts';

/** The `202` body of spec 2; `normalizedFailure` only when a success was refused. */
export type ToolResultSubmission = { outcome: 'submitted'; normalizedFailure?: { code: 'invalid_tool_result'; path: string } };

/**
 * Stores the result of a claimed caller tool call (`POST /tool-calls/{id}/result`), for the
 * claiming principal with the current fence and a live lease only; a final call's `safeResult`
 * never changes (409). A success is checked against the pinned `outputSchema` in the same transaction: a
 * malformed one is stored as `failed` with `invalid_tool_result` and the first failing path, and
 * the raw value is neither stored nor returned. A failure becomes `failed` with `tool_failed`
 * and the caller's optional message. The run is woken after commit.
 */
export async function submitToolResult({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { toolCallId: string; fence: string; safeResult: SafeResultInput };
}): Promise<ToolResultSubmission> {
  const actor = requireActor(ctx);
  if (!v.is(Fence, input.fence)) throw new ValidationError('fence must be a positive-integer string', { path: 'body.fence' });
  const envelope = v.safeParse(SafeResultInput, input.safeResult);
  if (!envelope.success) throw new ValidationError(`Invalid safeResult: ${envelope.issues[0].message}`, { path: 'body.safeResult' });
  const result = envelope.output;
  // The route has refused such bodies already; other callers (the compat facade) are re-checked.
  const unstorable = unstorableJsonPart(result);
  if (unstorable) {
    const path = ['body.safeResult', ...unstorable.path].join('.');
    throw new ValidationError(`${path}: ${describeJsonProblem(unstorable)}`, { path });
  }

  return withTransaction(ctx, async (tx) => {
    const call = await findToolCall(tx, input.toolCallId, { forUpdate: true });
    const now = tx.clock.now();
    assertLiveClaim(call, { fence: input.fence, principalId: actor.principalId }, now);

    let status: 'succeeded' | 'failed';
    let safeResult: StoredSafeResult;
    let failure: ToolCallFailure | null = null;
    let submission: ToolResultSubmission = { outcome: 'submitted' };
    if (result.status === 'success') {
      const run = await loadRunTools(tx, call.runId);
      const tool = run.tools.get(call.toolName);
      const check = tool
        ? validateToolValue({ agentVersionId: run.agentVersionId, tool, direction: 'output', value: result.value })
        : ({ ok: false, path: 'safeResult.value', message: 'safeResult.value cannot be checked: the tool is not in the pinned version' } as const);
      if (check.ok) {
        status = 'succeeded';
        safeResult = { version: TOOL_RESULT_VERSION, status: 'success', value: result.value };
      } else {
        status = 'failed';
        safeResult = { version: TOOL_RESULT_VERSION, status: 'failure', value: null };
        failure = toolFailure('invalid_tool_result', check.message, check.path);
        submission = { outcome: 'submitted', normalizedFailure: { code: 'invalid_tool_result', path: check.path } };
      }
    } else {
      status = 'failed';
      const value = result.value ?? null;
      safeResult = { version: TOOL_RESULT_VERSION, status: 'failure', value };
      failure = toolFailure('tool_failed', value?.message || 'The caller reported that the tool failed');
    }

    // The row is locked: the final row is computed here and its update rides with the event.
    const final = { status: moveToolCall(call.status, status), safeResult, failure, leaseExpiresAt: null, completedAt: now, updatedAt: now };
    await holdWrite(tx, tx.db.update(toolCalls).set(final).where(eq(toolCalls.id, call.id)));
    await appendProductEvent(tx, {
      organizationId: call.organizationId,
      projectId: call.projectId,
      ...toolCallChangedEvent({ ...call, ...final }, call.status),
    });
    tx.afterCommit.push(() => deps.runStarter.notify(call.runId, RUN_SIGNALS.toolResultSubmitted));
    return submission;
  });
}
