import { ConflictError, ServiceUnavailableError } from '../../../domain/errors.ts';
import { isSettled, type RunState } from '../../../domain/runs/states.ts';
import { hasScope } from '../../../domain/scopes.ts';
import { defaultFailureOf } from '../../../domain/sessions/run-failure.ts';
import type { MessageDeltaBus } from '../../../processes/message-delta-bus.ts';
import type { ProjectEventTail } from '../../../processes/project-event-tail.ts';
import type { RunStarterDeps } from '../../../services/kernel/run-starter.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { cancelRun, type PublicRun } from '../../../services/runtime/runs/index.ts';
import { followRun } from '../../shared/follow.ts';
import { answerOf, pendingWorkOf, turnMessages } from '../../shared/reply.ts';
import { startTurn } from '../../shared/start.ts';
import type { TurnOutcome } from '../domain/tool-results.ts';

export type CallAgentDeps = RunStarterDeps & { eventTail: ProjectEventTail; messageDeltas: MessageDeltaBus };

/** States a call answers in without waiting for more: the run ended, or it needs the caller. */
const WAITING: ReadonlySet<RunState> = new Set(['waiting_for_tool', 'waiting_for_approval']);
const answersIn = (state: RunState) => isSettled(state) || WAITING.has(state);

/**
 * One call of an agent tool: the message opens a conversation with the agent (or continues the
 * one `sessionId` names) as a run, which is followed until it ends or waits for the caller. The
 * reply being written reaches `onText` as it arrives. When `signal` aborts (the MCP client
 * cancelled the request or went away) following stops, and the run is cancelled when the caller
 * holds `run:cancel` (else it goes on, as a native caller without the scope could not stop it
 * either). Refusals of the turn (a conversation of another agent, unknown or busy) are the verbs'
 * domain errors.
 */
export async function callAgent({
  ctx,
  deps,
  input,
  signal,
  onText,
}: {
  ctx: ServiceContext;
  deps: CallAgentDeps;
  input: { agentId: string; sessionId: string | null; message: string };
  signal: AbortSignal;
  onText: (update: { text: string; replace: boolean }) => void;
}): Promise<TurnOutcome> {
  const { sessionId, run } = await startTurn({
    ctx,
    deps,
    input: { agentId: input.agentId, sessionId: input.sessionId, text: input.message, idempotencyKey: null },
  });
  // Without `ifBusy: enqueue` a busy conversation is refused, so a turn always has its run.
  if (!run) throw new ConflictError('The conversation is busy with another run');
  const follower = followRun(deps, ctx, { projectId: run.projectId, sessionId, runId: run.id });
  const stop = () => follower.close();
  signal.addEventListener('abort', stop, { once: true });
  let latest: PublicRun = run;
  try {
    if (!signal.aborted) {
      for await (const update of follower) {
        if (signal.aborted) break;
        if (update.kind === 'text') {
          onText(update);
          continue;
        }
        latest = update.run;
        if (answersIn(latest.state)) break;
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    follower.close();
  }
  const where = { projectId: run.projectId, sessionId, runId: run.id };
  if (signal.aborted) {
    // Cancelling a run is `run:cancel`'s, as natively: without it the caller only stops listening.
    if (!hasScope(ctx.actor?.scopes ?? [], 'run:cancel')) return { kind: 'withdrawn', ...where, state: latest.state, runCancelled: false };
    const cancelled = await cancelRun({ ctx, deps, input: { runId: run.id } });
    return { kind: 'withdrawn', ...where, state: cancelled.state, runCancelled: true };
  }
  // The follower ends on its own only when the process stops listening (shutting down).
  if (!answersIn(latest.state)) throw new ServiceUnavailableError('The service is restarting; the run goes on, follow it on the API or call again');
  return outcomeOf(ctx, latest, where);
}

async function outcomeOf(ctx: ServiceContext, run: PublicRun, where: { projectId: string; sessionId: string; runId: string }): Promise<TurnOutcome> {
  switch (run.state) {
    case 'completed':
      return { kind: 'completed', ...where, answer: answerOf(await turnMessages(ctx, run.id))?.text ?? '' };
    case 'failed':
    case 'cancelled':
    case 'timed_out':
      return { kind: 'ended', ...where, state: run.state, failure: run.failure ?? defaultFailureOf(run.state)! };
    case 'waiting_for_tool':
    case 'waiting_for_approval': {
      const pending = await pendingWorkOf(ctx, run);
      return {
        kind: 'waiting',
        ...where,
        state: run.state,
        toolCalls: pending.toolCalls.map((call) => ({ id: call.id, toolName: call.toolName })),
        approvals: pending.approvals.map((approval) => ({
          id: approval.id,
          toolName: approval.toolName,
          toolCallId: approval.toolCallId,
          expiresAt: approval.expiresAt,
        })),
      };
    }
    default:
      throw new Error(`a call answers only for an ended or waiting run, not a ${run.state} one`);
  }
}
