/**
 * Custom search attributes of run workflows (registered by temporal-dev.yaml on the dev server),
 * so an operator finds any run in the Temporal Web UI by project, session, agent or state.
 */
export const RUN_SEARCH_ATTRIBUTES = {
  projectId: 'projectId',
  sessionId: 'sessionId',
  agentId: 'agentId',
  runState: 'runState',
} as const;

/** Workflow id of a run: the row exists first, the id is derived from it. */
export const runWorkflowId = (runId: string) => `run:${runId}`;
export const RUN_WORKFLOW_TYPE = 'runWorkflow';
export const CANCEL_REQUESTED_SIGNAL = 'cancelRequested';
export const TOOL_RESULT_SUBMITTED_SIGNAL = 'toolResultSubmitted';
export const APPROVAL_DECIDED_SIGNAL = 'approvalDecided';
