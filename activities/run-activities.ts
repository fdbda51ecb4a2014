import { CancelledFailure, Context } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { runs } from '../db/schema/index.ts';
import type { AgentConfig } from '../domain/agent-config/index.ts';
import { EVENT_KINDS } from '../domain/runs/events.ts';
import { MODEL_ATTEMPT_DEADLINE_MS } from '../domain/runs/model-retry.ts';
import { isSettled } from '../domain/runs/states.ts';
import { type Clock, type ServiceContext, systemContext } from '../services/service-context.ts';
import type { CredentialKeyring } from '../services/credentials/keyring.ts';
import { appendProductEvent } from '../services/events/append.ts';
import type { DeploymentPreset } from '../services/model-presets/deployment.ts';
import { completeModelInvocation, failModelInvocation, startModelInvocation } from '../services/model-invocations/record-invocation.ts';
import { reserveModelTurn } from '../services/model-invocations/reserve-turn.ts';
import { resolveRunModel } from '../services/model-invocations/resolve-model.ts';
import { appendRunMessage } from '../services/runs/append-message.ts';
import { loadRunContext } from '../services/runs/load-run-context.ts';
import { transitionRun } from '../services/runs/transition.ts';
import { cancelOpenToolCalls } from '../services/tool-calls/cancel-open.ts';
import { withTransaction } from '../services/transaction.ts';
import { toModelMessages } from './model-messages.ts';
import type { PlatformToolRegistry } from './platform-tools/registry.ts';
import { createToolActivities } from './tool-activities.ts';
import { invokeModel } from './providers/index.ts';
import { ModelInvocationError, type ModelResult, type ProviderType } from './providers/types.ts';
import type { RunActivities } from './run-activity-types.ts';
import { sandboxToolDefinitions } from '../domain/sandbox/tools.ts';
import type { SandboxToolRunner } from './sandbox/tool-runner.ts';
import type { WorkspaceSteps } from './sandbox/workspace-steps.ts';

export type RunActivityDeps = {
  database: DatabaseHandle;
  /** Handlers of platform-owned tools, by tool name. */
  platformTools: PlatformToolRegistry;
  keyring: CredentialKeyring;
  modelBaseUrls: Record<ProviderType, string>;
  deploymentPresets: readonly DeploymentPreset[];
  logger: Logger;
  clock: Clock;
  /** Sandbox tools and the workspace steps around a run (activities/sandbox). */
  sandboxTools: SandboxToolRunner;
  workspaceSteps: WorkspaceSteps;
};

const HEARTBEAT_MS = 5_000;

/**
 * The run workflow's activities, wired once per worker. Every activity is idempotent: state
 * changes go through `transitionRun` (a repeat is a no-op), model attempts are keyed by run,
 * turn and attempt, and the assistant message of a turn is keyed by the turn id.
 */
export function createRunActivities(deps: RunActivityDeps): RunActivities {
  const system = (): ServiceContext => systemContext({ db: deps.database.db, logger: deps.logger, clock: deps.clock });

  return {
    ...createToolActivities({ system, platformTools: deps.platformTools, sandboxTools: deps.sandboxTools }),
    prepareRunWorkspace: (input) => deps.workspaceSteps.prepareRunWorkspace(input),
    backupWorkspace: (input) => deps.workspaceSteps.backupWorkspace(input),

    async admitRun({ runId }) {
      return withTransaction(system(), async (tx) => {
        const [run] = await tx.db.select().from(runs).where(eq(runs.id, runId)).for('update');
        if (!run) throw new Error(`run ${runId} does not exist`);
        if (isSettled(run.state)) return { kind: 'settled' as const, state: run.state as 'completed' };
        if (run.state === 'queued' && run.cancellationRequestedAt) {
          await transitionRun(tx, { runId, to: 'cancelled', failure: { errorCode: 'cancelled', errorExplanation: 'The run was cancelled before it started.' } });
          return { kind: 'settled' as const, state: 'cancelled' as const };
        }
        if (run.state === 'queued') await transitionRun(tx, { runId, to: 'running' });
        const context = await loadRunContext(tx.db, runId);
        const config = context.agentVersion.config as unknown as AgentConfig;
        return {
          kind: 'admitted' as const,
          maxTurns: config.limits.maxTurns,
          timeoutMs: config.limits.timeoutMs,
          wallDeadlineAtMs: run.wallDeadlineAt.getTime(),
          cancellationRequested: run.cancellationRequestedAt !== null,
          sandboxEnabled: config.sandbox.enabled,
        };
      });
    },

    async callModel({ runId, turnId, attempt }) {
      const ctx = system();
      const context = await loadRunContext(ctx.db, runId);
      const config = context.agentVersion.config as unknown as AgentConfig;
      const reservation = await reserveModelTurn(ctx, { runId, turnId, maxTurns: config.limits.maxTurns });
      if (!reservation.reserved) return { kind: 'budget_exhausted', maxTurns: config.limits.maxTurns };
      await startModelInvocation(ctx, { runId, turnId, attempt });

      const model = await resolveRunModel(ctx, {
        organizationId: context.run.organizationId,
        projectId: context.run.projectId,
        presetKey: config.modelPreset,
        keyring: deps.keyring,
        deploymentPresets: deps.deploymentPresets,
      });
      if ('unavailable' in model) {
        await failModelInvocation(ctx, { runId, turnId, attempt, errorCode: model.errorCode, errorExplanation: model.errorExplanation, providerFinishReason: null });
        return { kind: 'provider_error', retryable: false, errorCode: model.errorCode, errorExplanation: model.errorExplanation };
      }

      const activity = Context.current();
      const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
      let result: ModelResult;
      try {
        result = await invokeModel({
          ...model,
          baseUrl: deps.modelBaseUrls[model.providerType],
          systemPrompt: config.systemPrompt,
          messages: toModelMessages(context.messages),
          tools: [...config.tools, ...sandboxToolDefinitions(config.sandbox)].map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> })),
          signal: AbortSignal.any([activity.cancellationSignal, AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS)]),
        });
      } catch (error) {
        // Cancellation of the activity (the run was cancelled or timed out) is not a provider failure.
        if (activity.cancellationSignal.aborted) throw new CancelledFailure('model call cancelled');
        if (!(error instanceof ModelInvocationError)) throw error;
        await failModelInvocation(ctx, { runId, turnId, attempt, errorCode: error.errorCode, errorExplanation: error.message, providerFinishReason: error.providerFinishReason });
        return { kind: 'provider_error', retryable: error.retryable, errorCode: error.errorCode, errorExplanation: error.message };
      } finally {
        clearInterval(heartbeat);
      }

      await completeModelInvocation(ctx, {
        runId,
        turnId,
        attempt,
        usage: result.usage,
        finishReason: result.finishReason,
        providerFinishReason: result.providerFinishReason,
        thinking: result.thinking,
      });
      await appendRunMessage(ctx, { runId, stepKey: turnId, role: 'assistant', content: { text: result.text, toolCalls: result.toolCalls, replay: result.replay ?? null } });
      return result.toolCalls.length > 0 ? { kind: 'tool_calls', toolNames: result.toolCalls.map((call) => call.name) } : { kind: 'reply' };
    },

    async scheduleModelRetry({ runId, turnId, attempt, errorCode, delayMs }) {
      await withTransaction(system(), async (tx) => {
        const [run] = await tx.db.select().from(runs).where(eq(runs.id, runId)).for('update');
        if (!run || run.state !== 'running') return; // a replayed activity: already scheduled
        await transitionRun(tx, { runId, to: 'retry_scheduled' });
        await appendProductEvent(tx, {
          organizationId: run.organizationId,
          projectId: run.projectId,
          aggregateType: 'run',
          aggregateId: run.id,
          kind: EVENT_KINDS.modelRetryScheduled,
          publicPayload: { runId, sessionId: run.sessionId, turnId, failedAttempt: attempt, errorCode, retryInMs: delayMs },
        });
      });
    },

    async resumeRun({ runId }) {
      await transitionRun(system(), { runId, to: 'running' });
    },

    async settleRun({ runId, state, failure, invocationFailed }) {
      return withTransaction(system(), async (tx) => {
        const [run] = await tx.db.select().from(runs).where(eq(runs.id, runId)).for('update');
        if (!run) throw new Error(`run ${runId} does not exist`);
        if (isSettled(run.state)) return run.state;
        if (invocationFailed && failure) {
          await appendProductEvent(tx, {
            organizationId: run.organizationId,
            projectId: run.projectId,
            aggregateType: 'run',
            aggregateId: run.id,
            kind: EVENT_KINDS.modelInvocationFailed,
            publicPayload: { runId, sessionId: run.sessionId, errorCode: failure.errorCode, errorExplanation: failure.errorExplanation },
          });
        }
        await cancelOpenToolCalls(tx, { runId });
        const settled = await transitionRun(tx, { runId, to: state, failure });
        return settled.state;
      });
    },
  };
}
