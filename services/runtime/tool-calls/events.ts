import { APPROVAL_EVENT_KINDS, TOOL_CALL_CREATED, toolCallEventKind } from '../../../domain/tool-calls/events.ts';
import type { ToolCallStatus } from '../../../domain/tool-calls/states.ts';
import type { ProductEventDraft } from '../../kernel/events/index.ts';
import type { ApprovalRow, ToolCallRow } from './public.ts';

/** Ids, names, statuses and failure codes only: never arguments, results or notes. */
function callPayload(row: ToolCallRow): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    toolCallId: row.id,
    runId: row.runId,
    sessionId: row.sessionId,
    toolName: row.toolName,
    owner: row.owner,
    status: row.status,
    attempt: row.attempt,
  };
  if (row.failure) payload.failureCode = row.failure.code;
  return payload;
}

export const toolCallCreatedEvent = (row: ToolCallRow): ProductEventDraft => ({
  aggregateType: 'tool_call',
  aggregateId: row.id,
  kind: TOOL_CALL_CREATED,
  publicPayload: callPayload(row),
});

/** `tool_call.<status>` for every status change after creation. */
export const toolCallChangedEvent = (row: ToolCallRow, previousStatus: ToolCallStatus): ProductEventDraft => ({
  aggregateType: 'tool_call',
  aggregateId: row.id,
  kind: toolCallEventKind(row.status),
  publicPayload: { ...callPayload(row), previousStatus },
});

export const approvalRequestedEvent = (row: ApprovalRow): ProductEventDraft => ({
  aggregateType: 'approval',
  aggregateId: row.id,
  kind: APPROVAL_EVENT_KINDS.requested,
  publicPayload: { approvalId: row.id, toolCallId: row.toolCallId, runId: row.runId, sessionId: row.sessionId, expiresAt: row.expiresAt.toISOString() },
});

export const approvalDecidedEvent = (row: ApprovalRow): ProductEventDraft => ({
  aggregateType: 'approval',
  aggregateId: row.id,
  kind: APPROVAL_EVENT_KINDS.decided,
  publicPayload: {
    approvalId: row.id,
    toolCallId: row.toolCallId,
    runId: row.runId,
    sessionId: row.sessionId,
    status: row.status,
    decidedByPrincipalId: row.decidedByPrincipalId,
  },
});

/** `reason`: `deadline` (24 h passed) or `run_ended` (the run settled first). */
export const approvalExpiredEvent = (row: ApprovalRow, reason: 'deadline' | 'run_ended'): ProductEventDraft => ({
  aggregateType: 'approval',
  aggregateId: row.id,
  kind: APPROVAL_EVENT_KINDS.expired,
  publicPayload: { approvalId: row.id, toolCallId: row.toolCallId, runId: row.runId, sessionId: row.sessionId, expiresAt: row.expiresAt.toISOString(), reason },
});
