import type { Task } from '@a2a-js/sdk';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import type { PublicRun } from '../../../services/runtime/runs/index.ts';
import { pendingWorkOf, turnMessages } from '../../shared/reply.ts';
import { taskOf, type PendingInput } from '../domain/tasks.ts';

/** A run read as its A2A task: the run, its messages and, while it waits, what it waits for. */
export async function taskOfRun(
  ctx: ServiceContext,
  run: PublicRun,
  agentId: string,
  options: { historyLength?: number | undefined; includeArtifacts?: boolean } = {},
): Promise<Task> {
  const waiting = run.state === 'waiting_for_tool' || run.state === 'waiting_for_approval';
  const [messages, pending] = await Promise.all([turnMessages(ctx, run.id), waiting ? pendingInputOf(ctx, run) : null]);
  return taskOf(
    {
      runId: run.id,
      sessionId: run.sessionId,
      agentId,
      state: run.state,
      updatedAt: run.updatedAt,
      failure: run.failure ? { code: run.failure.errorCode, message: run.failure.errorExplanation } : null,
      messages,
      pending,
    },
    options,
  );
}

export async function pendingInputOf(ctx: ServiceContext, run: PublicRun): Promise<PendingInput> {
  const work = await pendingWorkOf(ctx, run);
  return {
    approvals: work.approvals.map((approval) => ({ approvalId: approval.id, toolName: approval.toolName, expiresAt: approval.expiresAt })),
    toolCalls: work.toolCalls.map((call) => ({ toolCallId: call.id, toolName: call.toolName, arguments: call.safeArguments })),
  };
}
