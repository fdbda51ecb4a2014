import type { RunState, SettledRunState } from '../domain/runs/states.ts';
import type { RunFailure } from '../domain/sessions/run-failure.ts';
import type { Admission } from '../services/runtime/runs/index.ts';
import type { HarnessOperationEnd } from '../services/runtime/harness-operations/index.ts';
import type { DelegationStart } from '../services/runtime/delegations/index.ts';
import type { WaitingEntry } from '../services/runtime/runs/index.ts';
import type { CompactionResult, CompactionStep } from '../services/runtime/compaction/index.ts';

export type { Admission, CompactionResult, CompactionStep, DelegationStart, HarnessOperationEnd, RunFailure, WaitingEntry };

export type ModelTurnResult =
  /** `settled`: the run's state, when the call was asked to settle the run with a final reply. */
  | { kind: 'reply'; settled?: RunState }
  | { kind: 'tool_calls'; toolNames: string[] }
  | { kind: 'provider_error'; retryable: boolean; errorCode: string; errorExplanation: string }
  | { kind: 'budget_exhausted'; maxTurns: number }
  /** The input would pass the compaction threshold: `compactContext` first, then the same attempt again. */
  | { kind: 'compact'; tokens: number; prefixTokens: number }
  /** The vendor refused the input as past the model's window (the attempt is recorded failed). */
  | { kind: 'context_overflow'; errorExplanation: string; tokens: number; prefixTokens: number };

/** Frees a run whose step is being retried from the sticky queue of the worker that ran it before (temporal/run-recovery.ts). */
export type RunRecovery = { releaseStickiness(runId: string): Promise<void> };

export type ToolProgress = {
  allFinal: boolean;
  waitingFor: 'approval' | 'tool' | null;
  nextDeadlineAtMs: number | null;
  /** `operation`: a Harness Operation call, which the workflow runs as a sub-loop (absent in histories from before them). */
  platformCalls: Array<{
    toolCallId: string;
    toolName: string;
    operation?: boolean;
    delegation?: boolean;
    /**
     * A delegation's key and how many child runs of that delegate may run at once: the workflow
     * runs a turn's delegations together (issue 49; absent in histories recorded before, whose
     * workflow ran them one after another).
     */
    delegateKey?: string;
    maxParallel?: number;
  }>;
};

/** A turn's delegation calls queued together, and how many child runs the run may have going at once. */
export type DelegationBatch = { ceiling: number; starts: Array<{ toolCallId: string; start: DelegationStart }> };

/**
 * A step's result that carries the progress it read after its write (the read it saves the
 * workflow), and what it went on to do in the same step (issue 33; absent in histories recorded
 * before, whose workflow then took those steps itself): `delegation`, the turn's first call to
 * run was a delegation and its child run is queued (`startDelegation`'s answer), or, since issue
 * 49, `delegations`, every delegation call to run queued (`startDelegations`'s answer); `resumed`, every
 * call of the turn is final, their results are in the transcript and the run is `running` again
 * (`appendToolResults`'s work).
 */
export type ToolProgressStep = {
  progress: ToolProgress;
  delegation?: { toolCallId: string; start: DelegationStart };
  /** Every delegation call the progress names, queued (issue 49; in place of `delegation`). */
  delegations?: DelegationBatch;
  resumed?: true;
};

export type HarnessOperationStart = { timeoutMs: number; operationKey: string };

export type PrepareWorkspaceResult = { ok: true } | { ok: false; errorCode: string; errorExplanation: string };
export type BackupWorkspaceResult = { generation: number } | { skipped: 'no_sandbox' | 'no_storage' | 'too_large' | 'already_done' };

/**
 * The run workflow's activities. Each is idempotent, keyed by run id and turn id (and the
 * attempt number for model calls), because Temporal may run any of them more than once. Each
 * is a thin adapter over service verbs (and the vendor or sandbox adapters); a domain error
 * reaches the workflow as a non-retryable ApplicationFailure typed by its code
 * (activities/failures.ts). Activity names are wire format: never rename one.
 */
export type RunActivities = {
  admitRun(input: { runId: string }): Promise<Admission>;
  /**
   * `settleOnReply`: a final reply (no tool calls) also settles the run `completed`, in the
   * transaction that records the reply (a main-thread turn of a run without a sandbox workspace
   * to back up; absent in histories from before issue 33).
   */
  callModel(input: { runId: string; turnId: string; attempt: number; settleOnReply?: boolean }): Promise<ModelTurnResult>;
  scheduleModelRetry(input: { runId: string; turnId: string; attempt: number; errorCode: string; delayMs: number }): Promise<void>;
  /**
   * Summarizes the older part of the turn's thread (docs/decisions/context-compaction.md):
   * the summary calls, then the step recorded once, keyed by turn, attempt and reason, so a
   * retried or replayed step writes one summary. `tokens`/`prefixTokens`: what `callModel`
   * estimated of the turn's input.
   */
  compactContext(input: CompactionStep): Promise<CompactionResult>;
  resumeRun(input: { runId: string }): Promise<void>;
  /**
   * Records the tool calls of a turn's assistant message (validation, approvals, retry counts),
   * then reads the turn's progress as `readToolProgress` would, so the workflow needs no step of
   * its own for that read (issue 33), and queues the child run when the first call to run is a
   * delegation (`delegation`). Undefined in histories recorded before.
   */
  recordTurnToolCalls(input: { runId: string; turnId: string }): Promise<ToolProgressStep | undefined>;
  /** Expires overdue leases and approvals, then reports what the turn is waiting for. */
  readToolProgress(input: { runId: string; turnId: string }): Promise<ToolProgress>;
  executePlatformTool(input: { runId: string; toolCallId: string }): Promise<void>;
  /** Opens a Harness Operation call's sub-loop (its thread and task message); idempotent. */
  startHarnessOperation(input: { runId: string; toolCallId: string }): Promise<HarnessOperationStart>;
  /** Queues the child run of a `delegate_agent`/`message_agent` call (or its refusal); idempotent. */
  startDelegation(input: { runId: string; toolCallId: string }): Promise<DelegationStart>;
  /** Queues the child runs of several delegation calls at once, in call order; idempotent per call. */
  startDelegations(input: { runId: string; toolCallIds: string[] }): Promise<DelegationBatch>;
  /** Settles `cancelled` the queued child runs of delegation calls a cancelled run never started; idempotent. */
  withdrawDelegations(input: { toolCallIds: string[] }): Promise<void>;
  /**
   * Records the child run's answer (or its failure) as the call's result; idempotent. Given the
   * turn, then reads its progress too, and when every call of the turn is final does
   * `appendToolResults`'s work (`resumed`) (issue 33; no `turnId` and no result in histories
   * recorded before).
   */
  finishDelegation(input: { runId: string; toolCallId: string; start: DelegationStart; turnId?: string }): Promise<ToolProgressStep | undefined>;
  /** Records how the sub-loop ended as the operation call's result (or tool error); idempotent. */
  finishHarnessOperation(input: {
    runId: string;
    toolCallId: string;
    operationKey: string;
    end: HarnessOperationEnd;
    turns: number;
    durationMs: number;
  }): Promise<void>;
  /**
   * Once every call of the turn is final, appends their results to the transcript, and moves the
   * run back to `running` as `resumeRun` does (`resumed`; undefined in histories recorded before
   * issue 33, whose workflow then took that step itself).
   */
  appendToolResults(input: { runId: string; turnId: string }): Promise<{ resumed: true } | undefined>;
  /**
   * Moves the run into a waiting state if a call still blocks it (idempotent); `waiting: false`
   * when none does any more (answered since the progress was read): the run goes on without
   * waiting (issue 45; undefined in histories recorded before, whose runs always waited).
   */
  enterWaitingState(input: { runId: string; state: 'waiting_for_tool' | 'waiting_for_approval' }): Promise<WaitingEntry | undefined>;
  settleRun(input: { runId: string; state: SettledRunState; failure: RunFailure | null; invocationFailed: boolean }): Promise<RunState>;
  /**
   * Before the first model turn: the session's sandbox and the run's attachments in its
   * workspace (verified). Not ok when an attachment is gone or fails its integrity check.
   */
  prepareRunWorkspace(input: { runId: string }): Promise<PrepareWorkspaceResult>;
  /** After the run settles: the workspace archived as the thread's next backup generation. */
  backupWorkspace(input: { runId: string }): Promise<BackupWorkspaceResult>;
};
