import { and, desc, eq } from 'drizzle-orm';
import { delegationCalls, delegations, messages, runs } from '../../../db/schema/index.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { loadRunVersion } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { completePlatformToolCall, type CompletedToolCall } from '../tool-calls/index.ts';
import type { DelegationStart } from './start-call.ts';

/**
 * Records how a delegation call ended as its tool result (for the runtime): a completed child run
 * answers `{delegateKey, childSessionId, childRunId, state, answer}` with the child's final
 * assistant text; a refused call or a child run that failed, was cancelled or timed out is a tool
 * error (`platform_tool_failed`, reason `refused` or `child_<state>`), never the coordinator's
 * failure. Appends `delegation.run_settled` (ids and state only) with a child result.
 * Idempotent: a call already final is returned as it is.
 */
export async function finishDelegationCall({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; toolCallId: string; start: DelegationStart };
}): Promise<CompletedToolCall> {
  if (input.start.kind === 'refused') {
    return completePlatformToolCall({
      ctx,
      input: { toolCallId: input.toolCallId, outcome: { status: 'failure', code: 'platform_tool_failed', message: input.start.message, reason: 'refused' } },
    });
  }
  const { run } = await loadRunVersion(ctx.db, input.runId);
  const [record] = await ctx.db
    .select({ delegation: delegations, childRun: runs })
    .from(delegationCalls)
    .innerJoin(delegations, eq(delegations.id, delegationCalls.delegationId))
    .innerJoin(runs, eq(runs.id, delegationCalls.childRunId))
    .where(eq(delegationCalls.toolCallId, input.toolCallId));
  if (!record) throw new Error(`delegation call ${input.toolCallId} was never started`);
  const { delegation, childRun } = record;
  const settled = {
    aggregateType: 'session',
    aggregateId: delegation.coordinatorSessionId,
    kind: EVENT_KINDS.delegationRunSettled,
    publicPayload: {
      delegationId: delegation.id,
      sessionId: run.sessionId,
      coordinatorRunId: run.id,
      toolCallId: input.toolCallId,
      delegateKey: delegation.delegateKey,
      childSessionId: delegation.childSessionId,
      childRunId: childRun.id,
      state: childRun.state,
    },
  };
  if (childRun.state !== 'completed') {
    const why = childRun.failure ? `: ${childRun.failure.errorExplanation}` : '';
    return completePlatformToolCall({
      ctx,
      input: {
        toolCallId: input.toolCallId,
        outcome: {
          status: 'failure',
          code: 'platform_tool_failed',
          message: `The run of "${delegation.delegateKey}" ended ${childRun.state}${why}`,
          reason: `child_${childRun.state}`,
        },
      },
    });
  }
  const [answer] = await ctx.db
    .select({ content: messages.content })
    .from(messages)
    .where(and(eq(messages.runId, childRun.id), eq(messages.threadId, childRun.threadId), eq(messages.role, 'assistant')))
    .orderBy(desc(messages.sequence))
    .limit(1);
  return completePlatformToolCall({
    ctx,
    input: {
      toolCallId: input.toolCallId,
      outcome: {
        status: 'success',
        value: {
          delegateKey: delegation.delegateKey,
          childSessionId: delegation.childSessionId,
          childRunId: childRun.id,
          state: childRun.state,
          answer: String(answer?.content.text ?? ''),
        },
      },
      events: [settled],
    },
  });
}
