import { Context } from '@temporalio/activity';
import { MCP_TOOL_PREFIX } from '../domain/agent-config/index.ts';
import { LOAD_SKILL_TOOL_NAME } from '../domain/skills/catalog.ts';
import { loadSkillForRun } from '../services/skills/load-for-run.ts';
import { callMcpTool, type McpCallDeps } from '../services/mcp/call-tool.ts';
import { transitionRun } from '../services/runs/transition.ts';
import type { ServiceContext } from '../services/service-context.ts';
import { appendToolResultMessages } from '../services/tool-calls/append-results.ts';
import { checkToolProgress } from '../services/tool-calls/check-progress.ts';
import { completePlatformToolCall } from '../services/tool-calls/complete-platform.ts';
import { findRunningPlatformCall } from '../services/tool-calls/find-running-platform.ts';
import { recordTurnToolCalls } from '../services/tool-calls/record-turn.ts';
import type { PlatformToolHandler, PlatformToolRegistry } from './platform-tools/registry.ts';
import type { RunActivities } from './run-activity-types.ts';
import type { SandboxToolRunner } from './sandbox/tool-runner.ts';

const HEARTBEAT_MS = 5_000;

type ToolActivities = Pick<RunActivities, 'recordTurnToolCalls' | 'readToolProgress' | 'executePlatformTool' | 'appendToolResults' | 'enterWaitingState'>;

/**
 * Tool steps of the run workflow. The tool-call verbs hold the rules (validation, fences,
 * approvals, retry counts); these activities only call them, and run platform tools through
 * their handler (a registered one, the session's sandbox, the session's Skills for
 * `load_skill`, or the remote MCP server of the binding that mounts it), so each step is
 * idempotent.
 */
export function createToolActivities(deps: { system: () => ServiceContext; platformTools: PlatformToolRegistry; sandboxTools: SandboxToolRunner; mcp: McpCallDeps }): ToolActivities {
  const { system, platformTools, sandboxTools } = deps;
  return {
    async recordTurnToolCalls(input) {
      await recordTurnToolCalls({ ctx: system(), input });
    },

    async readToolProgress(input) {
      const progress = await checkToolProgress({ ctx: system(), input });
      return {
        allFinal: progress.allFinal,
        waitingFor: progress.waitingFor,
        nextDeadlineAtMs: progress.nextDeadlineAtMs,
        platformCalls: progress.platformCalls.map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName })),
      };
    },

    async executePlatformTool({ runId, toolCallId }) {
      const ctx = system();
      const call = await findRunningPlatformCall({ ctx, input: { runId, toolCallId } });
      if (!call) return; // already completed by an earlier attempt
      if (call.toolName === LOAD_SKILL_TOOL_NAME) {
        await loadSkillForRun(ctx, { runId, toolCallId, arguments: call.arguments });
        return;
      }
      if (call.toolName.startsWith(MCP_TOOL_PREFIX)) {
        // The remote server answers; every failure is an outcome the model sees.
        const activity = Context.current();
        const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
        try {
          const { outcome, execution } = await callMcpTool(ctx, deps.mcp, { runId, toolName: call.toolName, arguments: call.arguments, signal: activity.cancellationSignal });
          if (activity.cancellationSignal.aborted) throw activity.cancellationSignal.reason;
          await completePlatformToolCall(ctx, { toolCallId, outcome, ...(execution ? { execution } : {}) });
        } finally {
          clearInterval(heartbeat);
        }
        return;
      }
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
        const outcome = await handler({ arguments: call.arguments, runId, toolCallId, signal: activity.cancellationSignal });
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

    async appendToolResults(input) {
      await appendToolResultMessages(system(), input);
    },

    async enterWaitingState({ runId, state }) {
      await transitionRun(system(), { runId, to: state });
    },
  };
}
