import { Context } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import { messages, toolCalls } from '../db/schema/index.ts';
import type { ServiceContext } from '../services/service-context.ts';
import { transitionRun } from '../services/runs/transition.ts';
import { appendToolResultMessages } from '../services/tool-calls/append-results.ts';
import { completePlatformToolCall } from '../services/tool-calls/complete-platform.ts';
import { expireOverdue } from '../services/tool-calls/expire-overdue.ts';
import { readToolProgress } from '../services/tool-calls/progress.ts';
import { recordToolCalls } from '../services/tool-calls/record.ts';
import type { PlatformToolHandler, PlatformToolRegistry } from './platform-tools/registry.ts';
import type { SandboxToolRunner } from './sandbox/tool-runner.ts';
import type { ModelToolCall } from './providers/types.ts';
import type { RunActivities } from './run-activity-types.ts';

const HEARTBEAT_MS = 5_000;

type ToolActivities = Pick<RunActivities, 'recordTurnToolCalls' | 'readToolProgress' | 'executePlatformTool' | 'appendToolResults' | 'enterWaitingState'>;

/**
 * Tool steps of the run workflow. The tool-call services hold the rules (validation, fences,
 * approvals, retry counts); these activities only call them, so each step is idempotent.
 */
export function createToolActivities(deps: { system: () => ServiceContext; platformTools: PlatformToolRegistry; sandboxTools: SandboxToolRunner }): ToolActivities {
  const { system, platformTools, sandboxTools } = deps;
  return {
    async recordTurnToolCalls({ runId, turnId }) {
      const ctx = system();
      const [assistant] = await ctx.db.select().from(messages).where(and(eq(messages.runId, runId), eq(messages.stepKey, turnId)));
      if (!assistant) throw new Error(`no assistant message for ${runId} ${turnId}`);
      const calls = ((assistant.content.toolCalls as ModelToolCall[] | undefined) ?? []).map((call) => ({
        providerCallId: call.id,
        name: call.name,
        arguments: call.arguments,
        argumentsText: call.argumentsText,
      }));
      await recordToolCalls(ctx, { runId, turnId, calls });
    },

    async readToolProgress({ runId, turnId }) {
      const ctx = system();
      await expireOverdue(ctx, { runId });
      const progress = await readToolProgress(ctx.db, { runId, turnId });
      return {
        allFinal: progress.allFinal,
        waitingFor: progress.waitingFor,
        nextDeadlineAtMs: progress.nextDeadlineAtMs,
        platformCalls: progress.platformCalls.map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName })),
      };
    },

    async executePlatformTool({ runId, toolCallId }) {
      const ctx = system();
      const [call] = await ctx.db.select().from(toolCalls).where(and(eq(toolCalls.id, toolCallId), eq(toolCalls.runId, runId)));
      if (!call || call.status !== 'running') return; // already completed by an earlier attempt
      // Sandbox tools are answered by the session's sandbox; every other platform tool by its handler.
      const handler: PlatformToolHandler | undefined = sandboxTools.handles(call.toolName)
        ? (input) => sandboxTools.run({ ...input, toolName: call.toolName })
        : platformTools.get(call.toolName);
      if (!handler) {
        await completePlatformToolCall(ctx, { toolCallId, outcome: { status: 'failure', code: 'platform_tool_failed', message: `No platform handler is registered for "${call.toolName}".` } });
        return;
      }
      const activity = Context.current();
      const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
      try {
        const outcome = await handler({ arguments: call.safeArguments, runId, toolCallId, signal: activity.cancellationSignal });
        await completePlatformToolCall(ctx, {
          toolCallId,
          outcome: outcome.status === 'success' ? outcome : { status: 'failure', code: 'platform_tool_failed', message: outcome.message.slice(0, 2000) },
        });
      } catch (error) {
        if (activity.cancellationSignal.aborted) throw error;
        // A handler that throws is a tool failure the model can react to, not a worker crash.
        await completePlatformToolCall(ctx, { toolCallId, outcome: { status: 'failure', code: 'platform_tool_failed', message: 'The platform tool failed.' } });
        ctx.logger.warn('platform tool failed', { runId, toolCallId, tool: call.toolName, err: error });
      } finally {
        clearInterval(heartbeat);
      }
    },

    async appendToolResults({ runId, turnId }) {
      await appendToolResultMessages(system(), { runId, turnId });
    },

    async enterWaitingState({ runId, state }) {
      await transitionRun(system(), { runId, to: state });
    },
  };
}
