import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import {
  CancellationScope,
  condition,
  continueAsNew,
  ChildWorkflowCancellationType,
  defineSignal,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  startChild,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { HarnessOperationEnd, RunActivities, RunFailure } from '../activities/run-activity-types.ts';
import { MODEL_ATTEMPT_DEADLINE_MS, modelRetryDelayMs, shouldRetryModel, turnLimitExplanation } from '../domain/runs/model-retry.ts';
import { RUN_GONE_FAILURE_TYPE, RUNTIME_FAILURE } from '../domain/runs/runtime-failures.ts';
import { RUN_SEARCH_ATTRIBUTES, RUN_SIGNALS, RUN_WORKFLOW_TYPE, runWorkflowId } from '../domain/runs/workflow.ts';
import type { RunState, SettledRunState } from '../domain/runs/states.ts';
import { executionClock } from './execution-clock.ts';

export const cancelRequested = defineSignal(RUN_SIGNALS.cancelRequested);
export const toolResultSubmitted = defineSignal(RUN_SIGNALS.toolResultSubmitted);
export const approvalDecided = defineSignal(RUN_SIGNALS.approvalDecided);
export const descendantApprovalWait = defineSignal<[{ runId: string; waiting: boolean }]>(RUN_SIGNALS.descendantApprovalWait);
export const capacityFreed = defineSignal(RUN_SIGNALS.capacityFreed);

/** How often a run waiting for a place in its project's running-runs limit re-checks unwoken. */
export const ADMISSION_RECHECK_MS = 60_000;

// Database steps: short and idempotent, so they run as local activities inside the workflow
// task (no extra task round trip per step). A transient failure (the database unreachable) is
// retried with back-off for up to 15 minutes; a permanent one (a domain error: the run is gone,
// a refused transition) is not retried at all (docs/decisions.md "Failure classification").
const store = proxyLocalActivities<RunActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '15 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// Model turns and platform tools: long calls with their own deadlines inside; they heartbeat,
// so a dead worker is noticed in seconds and cancellation reaches the call.
const calls = proxyActivities<RunActivities>({
  startToCloseTimeout: MODEL_ATTEMPT_DEADLINE_MS + 60_000,
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

// Workspace preparation and backup: object-storage transfers of up to a few hundred MB. A store
// that stays down fails the preparation (the run fails) or skips the backup, rather than
// holding the run for long.
const workspace = proxyActivities<RunActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

type Settlement = { state: SettledRunState; failure: RunFailure | null; invocationFailed: boolean };

/** History length past which a run continues as new at its next turn (Temporal may suggest sooner). */
export const DEFAULT_HISTORY_EVENT_LIMIT = 10_000;

export type RunWorkflowInput = {
  runId: string;
  historyEventLimit?: number;
  /** Set when a long run continued as new: where to pick up. Ids and counters only, no transcript. */
  resume?: { nextTurn: number; executionRemainingMs: number };
};

/**
 * One workflow per run (`run:<runId>`), driving the state machine of spec 1: admit, then model
 * turns until a final reply. Each turn reserves the durable turn budget; transient provider
 * failures are retried (`retry_scheduled`); tool calls are recorded and executed (platform) or
 * awaited (caller tools, approvals) by signal, never by polling; the run settles exactly once.
 * Postgres is what the API reads: every transition is written by an activity in the same
 * transaction as its product events.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunState | typeof RUN_GONE_RESULT> {
  const { runId } = input;
  const historyEventLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  const work = new CancellationScope();
  let cancelled = false;
  let timedOut = false;
  let woken = false;
  setHandler(cancelRequested, () => {
    cancelled = true;
    work.cancel();
  });
  // Hints only: after waking, the workflow re-reads Postgres.
  setHandler(toolResultSubmitted, () => void (woken = true));
  setHandler(approvalDecided, () => void (woken = true));
  // Approval waits pause the execution deadline of the waiting run and of every delegation
  // ancestor (concurrent waits count once); the 48-hour ceiling never pauses.
  let ownApprovalWait = false;
  const waitingDescendants = new Set<string>();
  let reportedWait = false;
  let syncClock = () => {};
  setHandler(descendantApprovalWait, ({ runId: descendant, waiting }) => {
    if (waiting) waitingDescendants.add(descendant);
    else waitingDescendants.delete(descendant);
    syncClock();
  });

  // The project's running-runs limit may make the run wait `queued`; a run that stops executing
  // wakes it (a hint: it re-checks every minute regardless), and so does cancellation.
  let placeFreed = false;
  setHandler(capacityFreed, () => void (placeFreed = true));
  let admission: Awaited<ReturnType<typeof store.admitRun>>;
  try {
    for (;;) {
      placeFreed = false;
      admission = await store.admitRun({ runId });
      if (admission.kind !== 'waiting') break;
      await condition(() => placeFreed || cancelled, ADMISSION_RECHECK_MS);
    }
  } catch (error) {
    if (isRunGone(error)) return runGone(runId);
    throw error;
  }
  if (admission.kind === 'settled') {
    markState(admission.state);
    return admission.state;
  }
  markState('running');
  if (admission.cancellationRequested) cancelled = true;

  const expire = () => {
    timedOut = true;
    work.cancel();
  };
  // The 48-hour ceiling never pauses; the execution limit pauses during approval waits.
  void sleep(Math.max(0, admission.wallDeadlineAtMs - Date.now())).then(expire);
  const clock = executionClock(input.resume?.executionRemainingMs ?? admission.timeoutMs, expire);
  syncClock = () => {
    const paused = ownApprovalWait || waitingDescendants.size > 0;
    if (paused) clock.pause();
    else clock.start();
    // A delegated run tells its coordinator, which passes it on to its own.
    const parent = workflowInfo().parent;
    if (parent && paused !== reportedWait) {
      reportedWait = paused;
      void getExternalWorkflowHandle(parent.workflowId).signal(descendantApprovalWait, { runId, waiting: paused }).catch(() => {});
    }
  };

  // Cleared before each read of Postgres, so a signal that arrives during the read still wakes
  // the wait that follows it.
  const waitForWake = async (deadlineAtMs: number | null) => {
    if (deadlineAtMs === null) await condition(() => woken);
    else await condition(() => woken, Math.max(0, deadlineAtMs - Date.now()) + 100);
  };

  /**
   * Runs a turn's tool calls to completion and appends their results to the transcript. A
   * Harness Operation call runs as a sub-loop here, in this workflow (docs/decisions.md "Harness
   * Operations"); inside a sub-loop, operations do not nest.
   */
  const settleToolCalls = async (turnId: string, inOperation: boolean) => {
    await store.recordTurnToolCalls({ runId, turnId });
    for (;;) {
      woken = false;
      const progress = await store.readToolProgress({ runId, turnId });
      if (progress.platformCalls.length > 0) {
        for (const call of progress.platformCalls) {
          if (call.delegation) await runDelegation(call.toolCallId);
          else if (!call.operation) await calls.executePlatformTool({ runId, toolCallId: call.toolCallId });
          else if (inOperation) await store.finishHarnessOperation({ runId, toolCallId: call.toolCallId, operationKey: call.toolName, end: { kind: 'nested' }, turns: 0, durationMs: 0 });
          else await runOperation(call.toolCallId);
        }
        continue;
      }
      if (progress.allFinal) break;
      const state = progress.waitingFor === 'approval' ? 'waiting_for_approval' : 'waiting_for_tool';
      await store.enterWaitingState({ runId, state });
      markState(state);
      ownApprovalWait = state === 'waiting_for_approval';
      syncClock();
      await waitForWake(progress.nextDeadlineAtMs);
    }
    ownApprovalWait = false;
    syncClock();
    await store.appendToolResults({ runId, turnId });
    await store.resumeRun({ runId });
    markState('running');
  };

  type TurnEnd = { kind: 'reply' } | { kind: 'tools_done' } | { kind: 'budget_exhausted'; maxTurns: number } | { kind: 'failed'; errorCode: string; errorExplanation: string };

  /** One model turn with its retries, and its tool calls when it asked for tools. */
  const modelTurn = async (turnId: string, inOperation: boolean): Promise<TurnEnd> => {
    for (let attempt = 1; ; attempt++) {
      const result = await calls.callModel({ runId, turnId, attempt });
      if (result.kind === 'reply') return { kind: 'reply' };
      if (result.kind === 'budget_exhausted') return { kind: 'budget_exhausted', maxTurns: result.maxTurns };
      if (result.kind === 'tool_calls') {
        await settleToolCalls(turnId, inOperation);
        return { kind: 'tools_done' };
      }
      if (!shouldRetryModel({ retryable: result.retryable, attempt })) return { kind: 'failed', errorCode: result.errorCode, errorExplanation: result.errorExplanation };
      const delayMs = modelRetryDelayMs(attempt);
      await store.scheduleModelRetry({ runId, turnId, attempt, errorCode: result.errorCode, delayMs });
      markState('retry_scheduled');
      await sleep(delayMs);
      await store.resumeRun({ runId });
      markState('running');
    }
  };

  /**
   * A Harness Operation call: a focused sub-loop of model turns (turn ids `op:<callId>:turn-N`,
   * each reserving from this run's budget) on the operation's own thread, within its
   * `timeoutMs`; how it ended becomes the call's result or tool error, never the run's failure.
   */
  const runOperation = async (toolCallId: string) => {
    const startedAt = Date.now();
    const { timeoutMs, operationKey } = await store.startHarnessOperation({ runId, toolCallId });
    let turns = 0;
    let end: HarnessOperationEnd;
    try {
      end = await CancellationScope.withTimeout(timeoutMs, async (): Promise<HarnessOperationEnd> => {
        for (let turn = 1; ; turn++) {
          turns = turn;
          const ended = await modelTurn(`op:${toolCallId}:turn-${turn}`, true);
          if (ended.kind === 'reply') return { kind: 'reply' };
          if (ended.kind === 'budget_exhausted') return { kind: 'failed', reason: 'turn_budget_exhausted', explanation: turnLimitExplanation(ended.maxTurns) };
          if (ended.kind === 'failed') return { kind: 'failed', reason: 'model_failed', explanation: ended.errorExplanation };
        }
      });
    } catch (error) {
      // The operation's own deadline; a cancelled or timed-out run goes on cancelling.
      if (!isCancellation(error) || cancelled || timedOut) throw error;
      end = { kind: 'timed_out', timeoutMs };
    }
    await store.finishHarnessOperation({ runId, toolCallId, operationKey, end, turns, durationMs: Date.now() - startedAt });
  };

  /**
   * A `delegate_agent`/`message_agent` call: the child run (its own session, run and budget) runs
   * as a Temporal child workflow of this one, so cancelling this run cancels it; its answer, or
   * how it ended, becomes the call's result (docs/decisions.md "Delegation").
   */
  const runDelegation = async (toolCallId: string) => {
    const start = await store.startDelegation({ runId, toolCallId });
    if (start.kind === 'started') {
      // Cancellation travels as the run's own signal (it settles the child `cancelled` like an
      // API cancel), not as a Temporal cancellation of the child.
      const child = await startChild(RUN_WORKFLOW_TYPE, {
        workflowId: runWorkflowId(start.childRunId),
        args: [{ runId: start.childRunId }],
        taskQueue: workflowInfo().taskQueue,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        typedSearchAttributes: [
          { key: RUN_SEARCH_ATTRIBUTES.projectId, value: start.projectId },
          { key: RUN_SEARCH_ATTRIBUTES.sessionId, value: start.childSessionId },
          { key: RUN_SEARCH_ATTRIBUTES.agentId, value: start.agentId },
          { key: RUN_SEARCH_ATTRIBUTES.runState, value: 'queued' },
        ],
      });
      try {
        await child.result();
      } catch (error) {
        if (isCancellation(error)) {
          await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(runWorkflowId(start.childRunId)).signal(cancelRequested));
          throw error;
        }
        // The child's own end is read from Postgres below.
        log.warn('a delegated run did not end cleanly', { runId, childRunId: start.childRunId, failure: failureType(error) });
      }
    }
    await store.finishDelegation({ runId, toolCallId, start });
  };

  const driveTurns = async (): Promise<Settlement> => {
    clock.start();
    for (let turn = input.resume?.nextTurn ?? 1; ; turn++) {
      const info = workflowInfo();
      if (info.continueAsNewSuggested || info.historyLength > historyEventLimit) {
        // Keep history bounded: start afresh at this turn; Postgres holds the transcript.
        await continueAsNew<typeof runWorkflow>({ runId, historyEventLimit, resume: { nextTurn: turn, executionRemainingMs: clock.remainingMs() } });
      }
      const ended = await modelTurn(`turn-${turn}`, false);
      if (ended.kind === 'reply') return { state: 'completed', failure: null, invocationFailed: false };
      if (ended.kind === 'budget_exhausted') {
        return { state: 'failed', failure: { errorCode: 'model_turn_limit_exceeded', errorExplanation: turnLimitExplanation(ended.maxTurns) }, invocationFailed: true };
      }
      if (ended.kind === 'failed') return { state: 'failed', failure: { errorCode: ended.errorCode, errorExplanation: ended.errorExplanation }, invocationFailed: true };
    }
  };

  let settlement: Settlement;
  if (cancelled) {
    settlement = cancelledSettlement();
  } else {
    try {
      settlement = await work.run(async () => {
        // The workspace (sandbox, restored backup, this run's attachments) is ready before the
        // first turn; a run that continued as new did this already.
        if (!input.resume && admission.sandboxEnabled) {
          const prepared = await workspace.prepareRunWorkspace({ runId }).catch((error: unknown) => {
            if (isCancellation(error)) throw error;
            return { ok: false as const, errorCode: 'workspace_unavailable', errorExplanation: 'The sandbox workspace could not be prepared for this run.' };
          });
          if (!prepared.ok) return { state: 'failed', failure: { errorCode: prepared.errorCode, errorExplanation: prepared.errorExplanation }, invocationFailed: false };
        }
        return driveTurns();
      });
    } catch (error) {
      if (isCancellation(error)) {
        settlement = timedOut && !cancelled ? timedOutSettlement(admission.timeoutMs) : cancelledSettlement();
      } else if (isStepFailure(error)) {
        // A step failed for good (a permanent failure, or its bounded retries are spent): the run
        // fails visibly instead of the workflow retrying or hanging.
        log.warn('a run step failed for good; settling the run as failed', { runId, failure: failureType(error) });
        settlement = { state: 'failed', failure: { ...RUNTIME_FAILURE }, invocationFailed: false };
      } else {
        throw error;
      }
    }
  }
  // Back the workspace up before settling, so a settled run's files are listable at once. A
  // backup that cannot be made never changes how the run settles (the previous generation stays).
  if (admission.sandboxEnabled) await CancellationScope.nonCancellable(() => workspace.backupWorkspace({ runId })).catch(() => undefined);
  let state: RunState;
  try {
    state = await CancellationScope.nonCancellable(() => store.settleRun({ runId, ...settlement }));
  } catch (error) {
    if (isRunGone(error)) return runGone(runId);
    throw error;
  }
  markState(state);
  return state;
}

/** What the workflow returns when its run no longer exists (say, its project was deleted). */
export const RUN_GONE_RESULT = 'run_gone';

function runGone(runId: string): typeof RUN_GONE_RESULT {
  // Nothing is left to settle or to report to: the workflow ends cleanly rather than retrying.
  log.info('the run no longer exists; the workflow ends', { runId });
  return RUN_GONE_RESULT;
}

/** A failed step: activities fail as `ActivityFailure`, local activities with the activity's own `ApplicationFailure`. */
function isStepFailure(error: unknown): error is ActivityFailure | ApplicationFailure {
  return error instanceof ActivityFailure || error instanceof ApplicationFailure;
}

function failureType(error: unknown): string | null {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure ? (failure.type ?? null) : null;
}

function isRunGone(error: unknown): boolean {
  return isStepFailure(error) && failureType(error) === RUN_GONE_FAILURE_TYPE;
}

function cancelledSettlement(): Settlement {
  return { state: 'cancelled', failure: { errorCode: 'cancelled', errorExplanation: 'The run was cancelled on request.' }, invocationFailed: false };
}

function timedOutSettlement(timeoutMs: number): Settlement {
  return { state: 'timed_out', failure: { errorCode: 'run_timed_out', errorExplanation: `The run exceeded its execution time limit of ${timeoutMs} ms.` }, invocationFailed: false };
}

function markState(state: RunState) {
  upsertSearchAttributes([{ key: RUN_SEARCH_ATTRIBUTES.runState, value: state }]);
}
