import type { ToolCallStatus } from './states.ts';

/**
 * Product event kinds of tool calls and approvals. Like `run.<state>`, every status change of a
 * call after its creation is `tool_call.<status>`. Payloads carry ids, names, statuses and
 * failure codes only — never arguments, results or approval notes.
 */
export const TOOL_CALL_CREATED = 'tool_call.created';
export const toolCallEventKind = (status: ToolCallStatus) => `tool_call.${status}` as const;

export const APPROVAL_EVENT_KINDS = {
  requested: 'approval.requested',
  decided: 'approval.decided',
  expired: 'approval.expired',
} as const;
