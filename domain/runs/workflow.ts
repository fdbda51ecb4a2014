import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Names shared by the run workflow and those who start, signal and search it. They are wire
 * format (histories and the Web UI's saved searches hold them): never rename a deployed one.
 */

/** Workflow id of a run: the row exists first, the id is derived from it. */
export const runWorkflowId = (runId: string) => `run:${runId}`;
export const RUN_WORKFLOW_TYPE = 'runWorkflow';

/** Signals of the run workflow. Tool results and approvals are hints: the workflow re-reads Postgres. */
export const RUN_SIGNALS = {
  cancelRequested: 'cancelRequested',
  toolResultSubmitted: 'toolResultSubmitted',
  approvalDecided: 'approvalDecided',
  /** From a delegated child run to its coordinator: whether an approval wait below it holds. */
  descendantApprovalWait: 'descendantApprovalWait',
  /** A place in the project's running-runs limit may be free: a run waiting for one re-checks. */
  capacityFreed: 'capacityFreed',
} as const;

/** The wake-up hints verbs send after committing a tool result or an approval decision, or freeing a place. */
export type RunWakeSignal = typeof RUN_SIGNALS.toolResultSubmitted | typeof RUN_SIGNALS.approvalDecided | typeof RUN_SIGNALS.capacityFreed;

/**
 * Custom search attributes of run workflows (and `projectId` of webhook delivery workflows),
 * registered by temporal-dev.yaml on the dev server, so an operator finds any run in the
 * Temporal Web UI by project, session, agent or state.
 */
export const RUN_SEARCH_ATTRIBUTES = {
  projectId: defineSearchAttributeKey('projectId', SearchAttributeType.KEYWORD),
  sessionId: defineSearchAttributeKey('sessionId', SearchAttributeType.KEYWORD),
  agentId: defineSearchAttributeKey('agentId', SearchAttributeType.KEYWORD),
  runState: defineSearchAttributeKey('runState', SearchAttributeType.KEYWORD),
} as const;
