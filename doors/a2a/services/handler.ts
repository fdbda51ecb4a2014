import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { AppDeps } from '../../../api/deps.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { isSettled, RUN_STATES, type RunState } from '../../../domain/runs/states.ts';
import { isUuid } from '../../../domain/uuid.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { decideApproval } from '../../../services/runtime/approvals/index.ts';
import { cancelRun, findSession, getRun, listAgentRunsOfPrincipal, type PublicRun } from '../../../services/runtime/runs/index.ts';
import { claimToolCall, submitToolResult } from '../../../services/runtime/tool-calls/index.ts';
import { executeIdempotently, hashRequestBody } from '../../../services/kernel/idempotency/index.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';
import { followRun } from '../../shared/follow.ts';
import { answerOf, turnMessages } from '../../shared/reply.ts';
import { startTurn } from '../../shared/start.ts';
import { agentCardOf, type CardAgent } from '../domain/cards.ts';
import { MessageProblem, readCallerMessage, type Answer } from '../domain/messages.ts';
import { agentMessage, answerArtifact, inputRequiredParts, isFinalOrInterrupted, taskStateOf, textPart } from '../domain/tasks.ts';
import { taskNotFound } from './errors.ts';
import { pendingInputOf, taskOfRun } from './tasks.ts';

/** `ListTasks` pages: 50 unless asked, 1-100 (A2A 1.0 §3.1.4). */
const LIST_PAGE = { fallback: 50, max: 100 } as const;
/** How long `CancelTask` waits for the run to settle before it answers with the task as it is. */
const CANCEL_SETTLE_MS = 30_000;

/** The run states a task state filter means (a state no run takes, such as REJECTED, means none). */
const runStatesOf = (taskState: TaskState): RunState[] => RUN_STATES.filter((state) => taskStateOf(state) === taskState);

/** `historyLength` as A2A reads it: absent (all), or a count of the latest messages. */
function historyLengthOf(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) throw new RequestMalformedError('historyLength: must be a whole number, 0 or more');
  return value;
}

export type DoorRequest = {
  deps: AppDeps;
  ctx: ServiceContext;
  agent: CardAgent;
  /** The agent's A2A endpoint as the caller reached it (the card names it). */
  endpoint: string;
  /** Our errors as A2A errors (api/: it knows the request, for database errors and the log). */
  translate(error: unknown): Error;
  /** Aborts when the caller goes away: a blocking call stops following its task (the run goes on). */
  signal: AbortSignal;
  /** A place among the process's open streams while a blocking call follows its task (released after). */
  takeFollowPlace(): () => void;
};

/**
 * One agent's A2A methods over our verbs, for one request (docs/decisions/a2a-door.md): a task
 * is a run the caller started with this agent, its `contextId` the session. The SDK's JSON-RPC
 * binding calls these; so does our HTTP+JSON binding. Every method's error leaves as an A2A error.
 */
export function doorHandler(request: DoorRequest): A2ARequestHandler {
  const { ctx, deps, agent } = request;
  const guarded =
    <Args extends unknown[], R>(method: (...args: Args) => Promise<R>) =>
    async (...args: Args): Promise<R> => {
      try {
        return await method(...args);
      } catch (error) {
        throw request.translate(error);
      }
    };
  const guardedStream = <Args extends unknown[]>(method: (...args: Args) => AsyncGenerator<StreamResponse>) =>
    async function* (...args: Args): AsyncGenerator<StreamResponse> {
      try {
        yield* method(...args);
      } catch (error) {
        throw request.translate(error);
      }
    };

  /** The run of a task: the caller's own, of this agent; anything else is not found. */
  async function ownRun(taskId: string): Promise<PublicRun> {
    if (!isUuid(taskId)) throw taskNotFound();
    let run: PublicRun;
    try {
      run = await getRun({ ctx, input: { runId: taskId } });
    } catch (error) {
      if (error instanceof NotFoundError) throw taskNotFound();
      throw error;
    }
    if (run.createdByPrincipalId !== ctx.actor!.principalId) throw taskNotFound();
    const session = await findSession({ ctx, input: { sessionId: run.sessionId } });
    if (session.agentId !== agent.id) throw taskNotFound();
    return run;
  }

  /** What a message does: a new task (a turn), or the answers an input-required task waits for. */
  async function accept(params: SendMessageRequest): Promise<{ run: PublicRun; answered: RunState | null }> {
    let message;
    try {
      message = readCallerMessage(params.message);
    } catch (error) {
      if (error instanceof MessageProblem)
        throw error.kind === 'content_type' ? new ContentTypeNotSupportedError(error.message) : new RequestMalformedError(error.message);
      throw error;
    }
    const { taskId, contextId } = params.message!;
    if (taskId) {
      const run = await ownRun(taskId);
      if (contextId && contextId !== run.sessionId) throw new RequestMalformedError('message.contextId: not the context of that task');
      if (run.state !== 'waiting_for_tool' && run.state !== 'waiting_for_approval')
        throw new UnsupportedOperationError(
          isSettled(run.state)
            ? 'That task has ended: send a new message on its contextId, without taskId, for the next turn'
            : 'That task is not waiting for input: follow it with SubscribeToTask, or cancel it',
        );
      if (message.answers.length === 0)
        throw new RequestMalformedError('message.parts: answer an input-required task with a data part {"approval": {...}} or {"toolResult": {...}}');
      await answer(run, message.answers);
      return { run, answered: run.state };
    }
    if (message.answers.length > 0) throw new RequestMalformedError('message.taskId: approval and toolResult parts answer a task; name it');
    if (message.text.trim() === '') throw new RequestMalformedError('message.parts: give a text part');
    if (contextId && !isUuid(contextId)) throw new RequestMalformedError('message.contextId: no conversation with that id');
    return { run: await startOnce(params.message!.messageId, { contextId: contextId || null, text: message.text }), answered: null };
  }

  /**
   * Starts the message's turn once per `messageId` (the caller's id of its message): the run and
   * the idempotency record commit together, so a resent message (a client's retry) is the same
   * task, and the same id with other content is refused. Without an id, every message is a turn.
   */
  async function startOnce(messageId: string, turn: { contextId: string | null; text: string }): Promise<PublicRun> {
    const start = (tx: ServiceContext) =>
      startTurn({ ctx: tx, deps, input: { agentId: agent.id, sessionId: turn.contextId, text: turn.text, idempotencyKey: null } });
    if (!messageId) return (await start(ctx)).run!;
    let started: PublicRun | null = null;
    const outcome = await executeIdempotently({
      ctx,
      input: {
        scope: { principalId: ctx.actor!.principalId, route: `A2A SendMessage ${agent.id}`, idempotencyKey: `message:${messageId}` },
        requestHash: hashRequestBody(JSON.stringify(turn)),
      },
      run: async (tx) => {
        started = (await start(tx)).run!;
        return { status: 200, body: { runId: started.id }, headers: {} };
      },
    });
    if (outcome.kind === 'replay') return getRun({ ctx, input: { runId: (JSON.parse(outcome.record.bodyText ?? '{}') as { runId: string }).runId } });
    if (!started) throw new Error('the turn was neither started nor replayed');
    return started;
  }

  /** Applies a reply's answers in one transaction: all of them, or none. */
  async function answer(run: PublicRun, answers: Answer[]) {
    const pending = await pendingInputOf(ctx, run);
    await withTransaction(ctx, async (tx) => {
      for (const [index, item] of answers.entries()) {
        const at = `message.parts (answer ${index + 1})`;
        if (item.kind === 'approval') {
          const approvalId = item.approvalId ?? (pending.approvals.length === 1 ? pending.approvals[0]!.approvalId : null);
          if (!approvalId || !pending.approvals.some((approval) => approval.approvalId === approvalId))
            throw new RequestMalformedError(`${at}: name an approval this task waits for (${pending.approvals.map((a) => a.approvalId).join(', ') || 'none'})`);
          await decideApproval({
            ctx: tx,
            deps,
            input: { approvalId, status: item.decision === 'approve' ? 'approved' : 'denied', ...(item.note ? { note: item.note } : {}) },
          });
        } else {
          if (!pending.toolCalls.some((call) => call.toolCallId === item.toolCallId))
            throw new RequestMalformedError(`${at}: name a tool call this task waits for (${pending.toolCalls.map((c) => c.toolCallId).join(', ') || 'none'})`);
          const claim = await claimToolCall({ ctx: tx, deps, input: { toolCallId: item.toolCallId } });
          const safeResult =
            item.error === null
              ? { version: 1 as const, status: 'success' as const, value: item.value }
              : { version: 1 as const, status: 'failure' as const, value: null };
          await submitToolResult({ ctx: tx, deps, input: { toolCallId: item.toolCallId, fence: claim.fence, safeResult } });
        }
      }
    });
  }

  /**
   * The task's updates until it ends or waits for input: the task as it is, then its status
   * changes and its answer as it is written (artifact chunks of `answer`, from the live output),
   * the whole answer last. After an answer to an input-required task the waiting state it answered
   * is stale: it is passed over until the run moves on, unless input of that kind is still owed.
   */
  async function* updatesOf(run: PublicRun, answered: RunState | null): AsyncGenerator<StreamResponse> {
    const ids = { taskId: run.id, contextId: run.sessionId };
    let first = true;
    let reported: RunState | null = null;
    for await (const update of following(run, answered)) {
      if (update.kind === 'text') {
        if (first) continue;
        const artifact = { ...answerArtifact(update.text), parts: [textPart(update.text)] };
        yield { payload: { $case: 'artifactUpdate', value: { ...ids, artifact, append: !update.replace, lastChunk: false, metadata: undefined } } };
        continue;
      }
      const current = update.run;
      if (first) {
        first = false;
        reported = current.state;
        yield { payload: { $case: 'task', value: await taskOfRun(ctx, current, agent.id) } };
      } else if (current.state !== reported) {
        reported = current.state;
        yield* statusUpdatesOf(current);
      }
      if (update.ends) return;
    }

    async function* statusUpdatesOf(current: PublicRun): AsyncGenerator<StreamResponse> {
      const state = taskStateOf(current.state);
      let message: Message | undefined;
      if (current.state === 'completed') {
        const reply = answerOf(await turnMessages(ctx, current.id));
        if (reply)
          yield {
            payload: { $case: 'artifactUpdate', value: { ...ids, artifact: answerArtifact(reply.text), append: false, lastChunk: true, metadata: undefined } },
          };
      } else if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        message = agentMessage({ messageId: `${current.id}:input-required`, ...ids, parts: inputRequiredParts(await pendingInputOf(ctx, current)) });
      } else if (current.failure) {
        message = agentMessage({
          messageId: `${current.id}:failure`,
          ...ids,
          parts: [textPart(`${current.failure.errorCode}: ${current.failure.errorExplanation}`)],
        });
      }
      yield {
        payload: { $case: 'statusUpdate', value: { ...ids, status: { state, message, timestamp: current.updatedAt }, metadata: { runState: current.state } } },
      };
    }
  }

  /**
   * The run's updates, each state marked with whether it ends a blocking call or a stream (A2A's
   * final and interrupted states); a stale waiting state after an answer is left out (see updatesOf).
   */
  async function* following(
    run: PublicRun,
    answered: RunState | null,
    ends: (run: PublicRun) => boolean = (current) => isFinalOrInterrupted(taskStateOf(current.state)),
    signal?: AbortSignal,
  ): AsyncGenerator<{ kind: 'text'; text: string; replace: boolean } | { kind: 'run'; run: PublicRun; ends: boolean }> {
    const follower = followRun(deps, ctx, { projectId: run.projectId, sessionId: run.sessionId, runId: run.id });
    // Stopped (the caller left, a ceiling passed): the follower ends, and with it a pending wait.
    signal?.addEventListener('abort', () => follower.close(), { once: true });
    let stale = answered;
    try {
      for await (const update of follower) {
        if (update.kind === 'text') {
          yield update;
          continue;
        }
        const current = update.run;
        if (stale !== null && current.state === stale) {
          if (await stillOwed(current)) return yield { kind: 'run', run: current, ends: true };
          continue;
        }
        stale = null;
        yield { kind: 'run', run: current, ends: ends(current) };
      }
    } finally {
      follower.close();
    }
  }

  /** Whether a waiting run still waits for input of the kind its state names. */
  async function stillOwed(current: PublicRun) {
    const pending = await pendingInputOf(ctx, current);
    return current.state === 'waiting_for_approval' ? pending.approvals.length > 0 : pending.toolCalls.length > 0;
  }

  /** Follows a run until an update ends the follow (by default A2A's final and interrupted states); the run then. */
  async function runUntil(run: PublicRun, answered: RunState | null, options: { ends?: (run: PublicRun) => boolean; ceilingMs?: number } = {}) {
    const release = request.takeFollowPlace();
    const stopped = new AbortController();
    const stop = () => stopped.abort();
    const ceiling = options.ceilingMs ? setTimeout(stop, options.ceilingMs) : null;
    request.signal.addEventListener('abort', stop, { once: true });
    if (request.signal.aborted) stop();
    try {
      for await (const update of following(run, answered, options.ends, stopped.signal)) if (update.kind === 'run' && update.ends) return update.run;
    } finally {
      if (ceiling) clearTimeout(ceiling);
      request.signal.removeEventListener('abort', stop);
      release();
    }
    return getRun({ ctx, input: { runId: run.id } });
  }

  return {
    getAgentCard: async (): Promise<AgentCard> => agentCardOf(agent, request.endpoint),
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError('This server has no extended agent card: the card is already served to authenticated callers only');
    },
    sendMessage: guarded(async (params: SendMessageRequest): Promise<Message | Task> => {
      const historyLength = historyLengthOf(params.configuration?.historyLength);
      const { run, answered } = await accept(params);
      if (params.configuration?.returnImmediately) return taskOfRun(ctx, run, agent.id, { historyLength });
      return taskOfRun(ctx, await runUntil(run, answered), agent.id, { historyLength });
    }),
    sendMessageStream: guardedStream(async function* (params: SendMessageRequest) {
      const { run, answered } = await accept(params);
      yield* updatesOf(run, answered);
    }),
    resubscribe: guardedStream(async function* (params: SubscribeToTaskRequest) {
      const run = await ownRun(params.id);
      if (isSettled(run.state)) throw new UnsupportedOperationError('That task has ended: GetTask reads it');
      yield* updatesOf(run, null);
    }),
    getTask: guarded(async (params: GetTaskRequest) =>
      taskOfRun(ctx, await ownRun(params.id), agent.id, { historyLength: historyLengthOf(params.historyLength) }),
    ),
    listTasks: guarded(async (params: ListTasksRequest): Promise<ListTasksResponse> => {
      const pageSize = params.pageSize ?? LIST_PAGE.fallback;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIST_PAGE.max) throw new RequestMalformedError(`pageSize: must be 1-${LIST_PAGE.max}`);
      if (params.contextId && !isUuid(params.contextId)) return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
      const since = params.statusTimestampAfter ? new Date(params.statusTimestampAfter) : undefined;
      if (since && Number.isNaN(since.getTime())) throw new RequestMalformedError('statusTimestampAfter: must be an ISO 8601 time');
      if (params.status === TaskState.UNRECOGNIZED) throw new RequestMalformedError('status: not a task state');
      const states = params.status ? runStatesOf(params.status) : undefined;
      const historyLength = historyLengthOf(params.historyLength);
      const page = await listAgentRunsOfPrincipal({
        ctx,
        input: {
          agentId: agent.id,
          limit: pageSize,
          ...(params.contextId ? { sessionId: params.contextId } : {}),
          ...(states ? { states } : {}),
          ...(since ? { updatedSince: since } : {}),
          ...(params.pageToken ? { cursor: params.pageToken } : {}),
        },
      }).catch((error: unknown) => {
        // The only 400 of the list is its cursor: A2A calls it the page token.
        throw error instanceof ValidationError ? new RequestMalformedError('pageToken: not a page token of this list') : error;
      });
      const tasks = await Promise.all(
        page.data.map((run) => taskOfRun(ctx, run, agent.id, { historyLength, includeArtifacts: params.includeArtifacts ?? false })),
      );
      return { tasks, nextPageToken: page.pageInfo.nextCursor ?? '', pageSize, totalSize: page.total };
    }),
    cancelTask: guarded(async (params: CancelTaskRequest) => {
      const run = await ownRun(params.id);
      if (isSettled(run.state)) throw new TaskNotCancelableError(`That task has already ended (${taskStateLabel(run.state)})`);
      await cancelRun({ ctx, deps, input: { runId: run.id } });
      const settled = await runUntil(run, null, { ends: (current) => isSettled(current.state), ceilingMs: CANCEL_SETTLE_MS });
      return taskOfRun(ctx, settled, agent.id);
    }),
    createTaskPushNotificationConfig: pushNotSupported,
    getTaskPushNotificationConfig: pushNotSupported,
    listTaskPushNotificationConfigs: pushNotSupported,
    deleteTaskPushNotificationConfig: pushNotSupported,
  };
}

const taskStateLabel = (state: RunState) => state.replace(/_/g, ' ');

async function pushNotSupported(): Promise<never> {
  throw new PushNotificationNotSupportedError(
    'Push notifications are not served here: follow a task with SendStreamingMessage or SubscribeToTask, or use signed webhooks',
  );
}
