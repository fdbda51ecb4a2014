import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { toolCalls } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { ToolExecutionRecord } from '../../../domain/tool-calls/execution.ts';
import { TOOL_FAILURE_MESSAGE_MAX, toolFailure, type ToolCallFailure } from '../../../domain/tool-calls/failures.ts';
import { TOOL_RESULT_VERSION, type StoredSafeResult } from '../../../domain/tool-calls/result-envelope.ts';
import { isToolCallFinal, type ToolCallStatus } from '../../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents, type ProductEventDraft } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toolCallChangedEvent } from './events.ts';
import { loadRunTools } from './run-tools.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { validateToolValue } from './validate-tool-value.ts';
import { moveToolCall } from '../../../domain/tool-calls/transitions.ts';

const Outcome = v.variant('status', [
  v.object({ status: v.literal('success'), value: v.unknown() }),
  v.object({
    status: v.literal('failure'),
    code: v.picklist(['platform_tool_failed', 'tool_failed']),
    message: v.pipe(v.string(), v.minLength(1)),
    reason: v.optional(v.pipe(v.string(), v.regex(/^[a-z_]{1,64}$/))),
  }),
]);

export type PlatformToolOutcome =
  { status: 'success'; value: unknown } | { status: 'failure'; code: 'platform_tool_failed' | 'tool_failed'; message: string; reason?: string };

export type CompletedToolCall = { toolCallId: string; status: ToolCallStatus; failure: ToolCallFailure | null };

/**
 * Stores the outcome of a platform tool the worker ran (for the runtime; no actor). A success is
 * checked against the tool's `outputSchema` first: a malformed one becomes `failed` with
 * `invalid_tool_result` and the first failing `safeResult.value…` path, and the value is not
 * stored. `execution` (an MCP call's server, policy and timing) goes to the debug record, and
 * `events` (a built-in's own, such as `skill.loaded`) are appended after the call's when it
 * succeeded. Idempotent for activity retries: a call that is already final is returned as it is
 * (the first outcome wins). A call that is not `running` (still awaiting approval) is a conflict.
 */
export async function completePlatformToolCall({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { toolCallId: string; outcome: PlatformToolOutcome; execution?: ToolExecutionRecord; events?: ProductEventDraft[] };
}): Promise<CompletedToolCall> {
  if (!v.is(v.pipe(v.string(), v.uuid()), input.toolCallId)) throw new ValidationError('toolCallId must be a UUID');
  const parsed = v.safeParse(Outcome, input.outcome);
  if (!parsed.success) throw new ValidationError(`Invalid platform tool outcome: ${parsed.issues[0].message}`);
  const outcome = parsed.output;

  return withTransaction(ctx, async (tx) => {
    const [call] = await tx.db.select().from(toolCalls).where(eq(toolCalls.id, input.toolCallId)).for('update');
    if (!call) throw new NotFoundError('No tool call with that id');
    if (isToolCallFinal(call.status)) return { toolCallId: call.id, status: call.status, failure: call.failure as ToolCallFailure | null };
    if (call.owner !== 'platform' || call.status !== 'running') {
      throw new ConflictError(`A ${call.status} ${call.owner} tool call cannot be completed by the runtime`, { toolCallId: call.id, status: call.status });
    }

    let status: 'succeeded' | 'failed';
    let safeResult: StoredSafeResult;
    let failure: ToolCallFailure | null = null;
    if (outcome.status === 'success') {
      const run = await loadRunTools(tx, call.runId);
      const tool = run.tools.get(call.toolName);
      const check = tool ? validateToolValue({ agentVersionId: run.agentVersionId, tool, direction: 'output', value: outcome.value }) : null;
      if (check?.ok) {
        status = 'succeeded';
        safeResult = { version: TOOL_RESULT_VERSION, status: 'success', value: outcome.value };
      } else {
        status = 'failed';
        safeResult = { version: TOOL_RESULT_VERSION, status: 'failure', value: null };
        failure = check
          ? toolFailure('invalid_tool_result', check.message, check.path)
          : toolFailure('platform_tool_failed', `no tool named "${call.toolName}" in the pinned version`);
      }
    } else {
      status = 'failed';
      failure = toolFailure(outcome.code, outcome.message.slice(0, TOOL_FAILURE_MESSAGE_MAX));
      if (outcome.reason !== undefined) failure.reason = outcome.reason;
      safeResult = { version: TOOL_RESULT_VERSION, status: 'failure', value: null };
    }

    const now = tx.clock.now();
    // The row is locked: the final row is computed here and its update rides with the events.
    const final = { status: moveToolCall(call.status, status), safeResult, failure, execution: input.execution ?? null, completedAt: now, updatedAt: now };
    await holdWrite(tx, tx.db.update(toolCalls).set(final).where(eq(toolCalls.id, call.id)));
    const updated = { ...call, ...final };
    // A built-in's own events (a Skill load) follow the call's, in the same transaction.
    const events = status === 'succeeded' ? (input.events ?? []) : [];
    await appendProductEvents(tx, {
      organizationId: call.organizationId,
      projectId: call.projectId,
      events: [toolCallChangedEvent(updated, call.status), ...events],
    });
    return { toolCallId: call.id, status, failure };
  });
}
