import { Context } from '@temporalio/activity';
import type { AdmissionGate } from '../services/runtime/runs/index.ts';
import { enterWaitingState } from '../services/runtime/runs/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import { resumeRunWithToolResults } from '../services/runtime/runs/index.ts';
import { checkToolProgress } from '../services/runtime/runs/index.ts';
import { completePlatformToolCall } from '../services/runtime/tool-calls/index.ts';
import { DELEGATION_TOOLS } from '../domain/runs/delegation.ts';
import type { CredentialKeyring } from '../services/kernel/credentials/index.ts';
import { finishDelegationCall, startDelegationCalls, withdrawDelegationCalls } from '../services/runtime/delegations/index.ts';
import { startDelegationCall } from '../services/runtime/delegations/index.ts';
import { finishHarnessOperation } from '../services/runtime/harness-operations/index.ts';
import { startHarnessOperation } from '../services/runtime/harness-operations/index.ts';
import { findRunningPlatformCall } from '../services/runtime/tool-calls/index.ts';
import { recordTurnToolCalls } from '../services/runtime/tool-calls/index.ts';
import type { PlatformToolRegistry } from './platform-tools/registry.ts';
import type { DelegationBatch, RunActivities, RunRecovery, ToolProgress } from './run-activity-types.ts';

/** How many child runs one run may have going at once when nothing else is configured. */
export const DEFAULT_RUN_DELEGATION_PARALLELISM = 8;

/** A platform call heartbeats this often, well inside its 5 s heartbeat timeout (workflows/run/proxies.ts). */
const HEARTBEAT_MS = 1_000;

type ToolActivities = Pick<
  RunActivities,
  | 'recordTurnToolCalls'
  | 'readToolProgress'
  | 'executePlatformTool'
  | 'startDelegation'
  | 'startDelegations'
  | 'withdrawDelegations'
  | 'finishDelegation'
  | 'startHarnessOperation'
  | 'finishHarnessOperation'
  | 'appendToolResults'
  | 'enterWaitingState'
>;

/**
 * Tool steps of the run workflow. The tool-call verbs hold the rules (validation, fences,
 * approvals, retry counts); these activities only call them, and run platform tools through
 * the registry's runner (a built-in: the session's sandbox, `load_skill`, a remote MCP server;
 * or an operator's handler), so each step is idempotent.
 */
export function createToolActivities(deps: {
  system: () => ServiceContext;
  platformTools: PlatformToolRegistry;
  keyring: CredentialKeyring;
  gate: AdmissionGate;
  /** A retried call first frees its run from the last worker's sticky queue (activities/run-activities.ts). */
  recovery?: RunRecovery;
  /** How many child runs one run may have going at once (`SVC_RUN_DELEGATION_PARALLELISM`). */
  delegationParallelism?: number;
}): ToolActivities {
  const { system, platformTools } = deps;
  const ceiling = deps.delegationParallelism ?? DEFAULT_RUN_DELEGATION_PARALLELISM;
  const startBatch = async (runId: string, toolCallIds: string[]): Promise<DelegationBatch> => ({
    ceiling,
    starts: await startDelegationCalls({ ctx: system(), deps: { keyring: deps.keyring }, input: { runId, toolCallIds } }),
  });

  /** Expires overdue leases and approvals, then reports what the turn is waiting for. */
  const readProgress = async (input: { runId: string; turnId: string }): Promise<ToolProgress> => {
    const progress = await checkToolProgress({ ctx: system(), input });
    return {
      allFinal: progress.allFinal,
      waitingFor: progress.waitingFor,
      nextDeadlineAtMs: progress.nextDeadlineAtMs,
      platformCalls: progress.platformCalls.map((call) => {
        const delegation = DELEGATION_TOOLS.includes(call.toolName);
        const entry = { toolCallId: call.toolCallId, toolName: call.toolName, operation: progress.operationKeys.includes(call.toolName), delegation };
        if (!delegation) return entry;
        const key = (call.arguments as { delegateKey?: unknown } | null)?.delegateKey;
        const delegate = progress.delegates.find((candidate) => candidate.key === key);
        // An unknown key is refused when it starts; it takes no one's place.
        return { ...entry, delegateKey: typeof key === 'string' ? key : '', maxParallel: delegate?.maxParallel ?? 1 };
      }),
    };
  };

  return {
    async recordTurnToolCalls(input) {
      await recordTurnToolCalls({ ctx: system(), input });
      const progress = await readProgress(input);
      // The workflow's next step would start the turn's delegations: their child runs are queued here.
      const delegating = progress.platformCalls.filter((call) => call.delegation).map((call) => call.toolCallId);
      if (delegating.length === 0) return { progress };
      return { progress, delegations: await startBatch(input.runId, delegating) };
    },

    readToolProgress: readProgress,

    async executePlatformTool({ runId, toolCallId }) {
      const ctx = system();
      const call = await findRunningPlatformCall({ ctx, input: { runId, toolCallId } });
      if (!call) return; // already completed by an earlier attempt
      const run = platformTools.resolve(call.toolName);
      if (!run) {
        await completePlatformToolCall({
          ctx,
          input: {
            toolCallId,
            outcome: { status: 'failure', code: 'platform_tool_failed', message: `No platform handler is registered for "${call.toolName}".` },
          },
        });
        return;
      }
      const activity = Context.current();
      if (activity.info.attempt > 1) await deps.recovery?.releaseStickiness(runId);
      const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
      try {
        const result = await run({ toolName: call.toolName, arguments: call.arguments, runId, toolCallId, signal: activity.cancellationSignal });
        if (activity.cancellationSignal.aborted) throw activity.cancellationSignal.reason;
        await completePlatformToolCall({ ctx, input: { toolCallId, ...result } });
      } catch (error) {
        if (activity.cancellationSignal.aborted) throw error;
        // A runner that throws is a tool failure the model can react to, not a worker crash.
        await completePlatformToolCall({
          ctx,
          input: { toolCallId, outcome: { status: 'failure', code: 'platform_tool_failed', message: 'The platform tool failed.' } },
        });
        ctx.logger.warn('platform tool failed', { runId, toolCallId, tool: call.toolName, err: error });
      } finally {
        clearInterval(heartbeat);
      }
    },

    async startDelegation(input) {
      return startDelegationCall({ ctx: system(), deps: { keyring: deps.keyring }, input });
    },

    startDelegations: ({ runId, toolCallIds }) => startBatch(runId, toolCallIds),

    async withdrawDelegations({ toolCallIds }) {
      await withdrawDelegationCalls({ ctx: system(), gate: deps.gate, input: { toolCallIds } });
    },

    async finishDelegation({ turnId, ...input }) {
      await finishDelegationCall({ ctx: system(), input });
      if (turnId === undefined) return undefined;
      const progress = await readProgress({ runId: input.runId, turnId });
      // The workflow's next step would append the turn's results and resume the run: done here.
      if (!progress.allFinal || progress.platformCalls.length > 0) return { progress };
      await resumeRunWithToolResults({ ctx: system(), input: { runId: input.runId, turnId } });
      return { progress, resumed: true };
    },

    async startHarnessOperation(input) {
      return startHarnessOperation({ ctx: system(), input });
    },

    async finishHarnessOperation(input) {
      await finishHarnessOperation({ ctx: system(), input });
    },

    async appendToolResults(input) {
      await resumeRunWithToolResults({ ctx: system(), input });
      return { resumed: true };
    },

    async enterWaitingState(input) {
      return enterWaitingState({ ctx: system(), gate: deps.gate, input });
    },
  };
}
