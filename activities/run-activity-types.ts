import type { RunState, SettledRunState } from '../domain/runs/states.ts';

/** What the run workflow learns when it admits its run. */
export type Admission =
  | { kind: 'settled'; state: SettledRunState }
  | {
      kind: 'admitted';
      maxTurns: number;
      /** Execution-time limit of the pinned version (`limits.timeoutMs`). */
      timeoutMs: number;
      /** The 48-hour wall-time ceiling, as epoch milliseconds. */
      wallDeadlineAtMs: number;
      /** Cancellation was requested before the workflow got here. */
      cancellationRequested: boolean;
      /** The pinned version enables a sandbox: the workspace is prepared before and backed up after. */
      sandboxEnabled: boolean;
    };

export type ModelTurnResult =
  | { kind: 'reply' }
  | { kind: 'tool_calls'; toolNames: string[] }
  | { kind: 'provider_error'; retryable: boolean; errorCode: string; errorExplanation: string }
  | { kind: 'budget_exhausted'; maxTurns: number };

export type RunFailure = { errorCode: string; errorExplanation: string };

export type ToolProgress = {
  allFinal: boolean;
  waitingFor: 'approval' | 'tool' | null;
  nextDeadlineAtMs: number | null;
  platformCalls: Array<{ toolCallId: string; toolName: string }>;
};

/**
 * The run workflow's activities. Each is idempotent, keyed by run id and turn id (and the
 * attempt number for model calls), because Temporal may run any of them more than once.
 */
export type RunActivities = {
  admitRun(input: { runId: string }): Promise<Admission>;
  callModel(input: { runId: string; turnId: string; attempt: number }): Promise<ModelTurnResult>;
  scheduleModelRetry(input: { runId: string; turnId: string; attempt: number; errorCode: string; delayMs: number }): Promise<void>;
  resumeRun(input: { runId: string }): Promise<void>;
  /** Records the tool calls of a turn's assistant message (validation, approvals, retry counts). */
  recordTurnToolCalls(input: { runId: string; turnId: string }): Promise<void>;
  /** Expires overdue leases and approvals, then reports what the turn is waiting for. */
  readToolProgress(input: { runId: string; turnId: string }): Promise<ToolProgress>;
  executePlatformTool(input: { runId: string; toolCallId: string }): Promise<void>;
  /** Once every call of the turn is final, appends their results to the transcript. */
  appendToolResults(input: { runId: string; turnId: string }): Promise<void>;
  /** Moves the run into a waiting state (idempotent). */
  enterWaitingState(input: { runId: string; state: 'waiting_for_tool' | 'waiting_for_approval' }): Promise<void>;
  settleRun(input: { runId: string; state: SettledRunState; failure: RunFailure | null; invocationFailed: boolean }): Promise<RunState>;
  /**
   * Before the first model turn: the session's sandbox and the run's attachments in its
   * workspace (verified). Not ok when an attachment is gone or fails its integrity check.
   */
  prepareRunWorkspace(input: { runId: string }): Promise<{ ok: true } | { ok: false; errorCode: string; errorExplanation: string }>;
  /** After the run settles: the workspace archived as the thread's next backup generation. */
  backupWorkspace(input: { runId: string }): Promise<{ generation: number } | { skipped: string }>;
};
