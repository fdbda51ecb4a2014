import { CancellationScope, upsertSearchAttributes } from '@temporalio/workflow';
import { RUN_SEARCH_ATTRIBUTES } from '../../domain/runs/workflow.ts';
import type { RunState } from '../../domain/runs/states.ts';
import type { ExecutionClock } from './execution-clock.ts';

export type RunWorkflowInput = {
  runId: string;
  historyEventLimit?: number;
  /** Set when a long run continued as new: where to pick up. Ids and counters only, no transcript. */
  resume?: { nextTurn: number; executionRemainingMs: number };
};

/**
 * What one execution of the run workflow knows beyond Postgres: created once by `runWorkflow`,
 * set by its signal handlers, read and written by the steps in this folder. Everything else the
 * workflow needs it re-reads from Postgres through the store activities.
 */
export type RunContext = {
  readonly runId: string;
  /**
   * The scope of the run's work (workspace, turns, tools, delegations). Cancelled by a cancel
   * request and by either deadline; the backup and the settlement run outside it.
   */
  readonly work: CancellationScope;
  /** Cancellation was requested (the `cancelRequested` signal, or found at admission). */
  cancelled: boolean;
  /** A deadline passed: the 48-hour ceiling or the execution-time limit (approval-clock.ts). */
  timedOut: boolean;
  /** A tool result or an approval decision arrived (a hint: the workflow re-reads Postgres). */
  woken: boolean;
  /** A run of the project stopped executing (a hint: admission is tried again). */
  placeFreed: boolean;
  /** Who is waiting for an approval, which pauses the execution clock (approval-clock.ts). */
  readonly approvalWaits: ApprovalWaits;
};

export type ApprovalWaits = {
  /** This run is `waiting_for_approval`. */
  own: boolean;
  /** Delegated runs below this one (at any depth) that wait for an approval, by run id. */
  descendants: Set<string>;
  /** What this run last told its coordinator (`descendantApprovalWait`). */
  reported: boolean;
  /** The execution-time limit; null until the run is admitted, and no wait is synced before. */
  clock: ExecutionClock | null;
};

/** Called once, first thing in `runWorkflow` (the work scope is a child of the root scope). */
export function newRunContext(runId: string): RunContext {
  return {
    runId,
    work: new CancellationScope(),
    cancelled: false,
    timedOut: false,
    woken: false,
    placeFreed: false,
    approvalWaits: { own: false, descendants: new Set<string>(), reported: false, clock: null },
  };
}

/** The run's state as the `runState` search attribute (runs filter by it in the Temporal UI); Postgres stays the source of truth. */
export function markState(state: RunState) {
  upsertSearchAttributes([{ key: RUN_SEARCH_ATTRIBUTES.runState, value: state }]);
}
