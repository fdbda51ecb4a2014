import { CancelledFailure, Context } from '@temporalio/activity';
import { mainTurnNumber } from '../domain/runs/message-deltas.ts';
import { MODEL_ATTEMPT_DEADLINE_MS } from '../domain/runs/model-retry.ts';
import type { MessageDeltaBus, TurnPublisher } from '../processes/message-delta-bus.ts';
import type { CredentialKeyring } from '../services/kernel/credentials/index.ts';
import type { DeploymentPreset } from '../services/configuration/model-presets/index.ts';
import { beginModelTurn } from '../services/runtime/model-turns/index.ts';
import { finishModelTurn } from '../services/runtime/model-turns/index.ts';
import { finishFinalTurn } from '../services/runtime/model-turns/index.ts';
import type { AdmissionGate } from '../services/runtime/runs/index.ts';
import { admitRun } from '../services/runtime/runs/index.ts';
import { scheduleModelRetry } from '../services/runtime/runs/index.ts';
import { settleRun } from '../services/runtime/runs/index.ts';
import { transitionRun } from '../services/runtime/runs/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import { meterModelCall } from './model-call.ts';
import { toModelMessages } from './model-messages.ts';
import { compactContext } from './compaction.ts';
import { invokeModel } from '../adapters/models/index.ts';
import { ModelInvocationError, type ModelMessage, type ModelResult, type ProviderType } from '../adapters/models/types.ts';
import { renderSummaryForModel } from '../domain/context/index.ts';
import type { RunActivities, RunRecovery } from './run-activity-types.ts';

export type RunStepDeps = {
  system: () => ServiceContext;
  keyring: CredentialKeyring;
  modelBaseUrls: Record<ProviderType, string>;
  deploymentPresets: readonly DeploymentPreset[];
  currency: string;
  /** The project running-runs limit admission applies, and how a waiting run is woken. */
  gate: AdmissionGate;
  /** Where the model's text goes as it is written (session streams with `deltas=true`). */
  messageDeltas: MessageDeltaBus;
  /** A retried call first frees its run from the last worker's sticky queue (a dead worker's, usually). */
  recovery?: RunRecovery;
};

/**
 * A model call heartbeats this often, well inside the workflow's model heartbeat timeout, so a
 * worker killed mid-stream is noticed in seconds rather than at the attempt deadline. The first
 * tick comes a second in: the SDK sends a first heartbeat at once, and each one is a write in
 * Temporal, so a call shorter than that sends none (the timeout runs from the call's start
 * either way). Not on every stream chunk: the timer proves the worker alive, and cancellation
 * arrives with the next heartbeat's answer either way.
 */
const HEARTBEAT_MS = 1_000;

type RunSteps = Pick<RunActivities, 'admitRun' | 'callModel' | 'compactContext' | 'scheduleModelRetry' | 'resumeRun' | 'settleRun'>;

/**
 * The run workflow's lifecycle and model steps, each a thin adapter over a service verb (the
 * model call: a verb, the vendor adapter, a verb). Idempotence lives in the verbs: state changes
 * go through `transitionRun` (a repeat is a no-op), model attempts are keyed by run, turn and
 * attempt, and the assistant message of a turn is keyed by the turn id.
 */
/**
 * The live-output publisher of a main-thread turn (a Harness Operation's sub-turns are not a reply
 * to the user, so they do not stream). A retried activity (a worker died mid-call) first voids
 * what the dead attempt streamed.
 */
function livePublisher(
  bus: MessageDeltaBus,
  run: { projectId: string; sessionId: string },
  runId: string,
  turnId: string,
  attempt: number,
  activityAttempt: number,
): TurnPublisher | null {
  const turn = mainTurnNumber(turnId);
  if (turn === null) return null;
  const publisher = bus.turn({ projectId: run.projectId, sessionId: run.sessionId, runId, turn, attempt });
  if (activityAttempt > 1) publisher.reset();
  return publisher;
}

/** The transcript as the model reads it: the latest compaction's summary first, then what followed it. */
function withSummary(summary: string | null, messages: ModelMessage[]): ModelMessage[] {
  return summary === null ? messages : [{ role: 'user', text: renderSummaryForModel(summary), summary: true }, ...messages];
}

export function createRunActivities(deps: RunStepDeps): RunSteps {
  const { system } = deps;
  return {
    admitRun: ({ runId }) => admitRun({ ctx: system(), gate: deps.gate, input: { runId } }),

    async callModel({ runId, turnId, attempt, settleOnReply }) {
      const activity = Context.current();
      // Heartbeats from the first second to the last: a live worker slowed by load while it
      // prepares the turn or records its end must not be taken for a dead one (a second attempt
      // would call the model again).
      const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
      try {
        const ctx = system();
        const plan = await beginModelTurn({ ctx, deps, input: { runId, turnId, attempt } });
        if (plan.kind === 'budget_exhausted') return { kind: 'budget_exhausted', maxTurns: plan.maxTurns };
        if (plan.kind === 'budget_exceeded')
          return { kind: 'provider_error', retryable: false, errorCode: 'budget_exceeded', errorExplanation: plan.errorExplanation };
        if (plan.kind === 'unavailable')
          return { kind: 'provider_error', retryable: false, errorCode: plan.errorCode, errorExplanation: plan.errorExplanation };
        if (plan.kind === 'compact') return { kind: 'compact', tokens: plan.tokens, prefixTokens: plan.prefixTokens };

        // A retry is usually a worker that died mid-call: the run's next workflow task must not wait
        // out the dead worker's sticky queue once this call is done.
        if (activity.info.attempt > 1) await deps.recovery?.releaseStickiness(runId);
        const live = livePublisher(deps.messageDeltas, plan.run, runId, turnId, attempt, activity.info.attempt);
        let result: ModelResult;
        const meter = meterModelCall(plan.model);
        try {
          result = await invokeModel({
            ...plan.model,
            baseUrl: deps.modelBaseUrls[plan.model.providerType],
            systemPrompt: plan.systemPrompt,
            messages: withSummary(plan.summary, toModelMessages(plan.transcript)),
            tools: plan.tools,
            promptCacheKey: plan.run.sessionId,
            signal: AbortSignal.any([activity.cancellationSignal, AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS)]),
            onStream: (event) => {
              if (event.kind === 'text') live?.text(event.text);
            },
          });
        } catch (error) {
          // What was streamed of this attempt is void (a retry, or the run ending, follows).
          live?.reset();
          // Cancellation of the activity (the run was cancelled or timed out) is not a provider failure.
          if (activity.cancellationSignal.aborted) {
            meter.cancelled();
            throw new CancelledFailure('model call cancelled');
          }
          if (!(error instanceof ModelInvocationError)) throw error;
          await finishModelTurn({ ctx, input: { runId, turnId, attempt, outcome: meter.failed(error) } });
          // Past the window: the workflow compacts and tries the turn again.
          if (error.errorCode === 'provider_context_overflow') return { kind: 'context_overflow', errorExplanation: error.message, ...plan.context };
          return { kind: 'provider_error', retryable: error.retryable, errorCode: error.errorCode, errorExplanation: error.message };
        }

        meter.succeeded(result);
        // Every delta reaches readers before `message.created`: the last ones, and the turn's end,
        // ride in the transaction that commits it (NOTIFYs are delivered at the commit).
        const commitNotices = (await live?.commitNotices()) ?? [];
        const finished = {
          runId,
          turnId,
          attempt,
          outcome: { kind: 'succeeded' as const, ...result, replay: result.replay ?? null, prices: plan.model.prices, contextWindow: plan.model.contextWindow },
          commitNotices,
        };
        if (settleOnReply && result.toolCalls.length === 0) {
          const settled = await finishFinalTurn({ ctx, gate: deps.gate, input: finished });
          live?.end();
          return { kind: 'reply', settled };
        }
        await finishModelTurn({ ctx, input: finished });
        live?.end();
        return result.toolCalls.length > 0 ? { kind: 'tool_calls', toolNames: result.toolCalls.map((call) => call.name) } : { kind: 'reply' };
      } finally {
        clearInterval(heartbeat);
      }
    },

    compactContext: (input) => compactContext(deps, input),

    scheduleModelRetry: (input) => scheduleModelRetry({ ctx: system(), input }),

    async resumeRun({ runId }) {
      await transitionRun({ ctx: system(), input: { runId, to: 'running' } });
    },

    settleRun: (input) => settleRun({ ctx: system(), gate: deps.gate, input }),
  };
}
