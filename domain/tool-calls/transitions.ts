import type { ApprovalStatus, ToolCallStatus } from './states.ts';

/**
 * Tool call moves (see states.ts for the lifecycle). A call is created in its first status
 * (`pending_approval`, `pending`, `running`, or `failed` when refused at recording), so creation
 * is not a transition. Final statuses never change: `safeResult` is immutable once written.
 */
const TOOL_CALL_MOVES: Readonly<Record<ToolCallStatus, readonly ToolCallStatus[]>> = {
  // Approved → pending (caller) or running (platform); denied or expired approval → denied.
  pending_approval: ['pending', 'running', 'denied', 'cancelled'],
  pending: ['claimed', 'cancelled'],
  // Released → pending; a lapsed lease → expired.
  claimed: ['pending', 'succeeded', 'failed', 'expired', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  expired: [],
  denied: [],
  cancelled: [],
};

/**
 * `to`, when a tool call in `from` may move there. A change of one call writes the status this
 * returns, and a change of many is guarded by `toolCallStatusesInto`, so the table above is the
 * one rule; a move it refuses is a verb's guard letting a wrong move through, and fails that
 * verb's transaction.
 */
export function moveToolCall<To extends ToolCallStatus>(from: ToolCallStatus, to: To): To {
  if (!TOOL_CALL_MOVES[from].includes(to)) throw new Error(`A tool call cannot move from ${from} to ${to}`);
  return to;
}

/** The statuses a tool call may move to `to` from: the guard of a change of many calls at once. */
export function toolCallStatusesInto(to: ToolCallStatus): ToolCallStatus[] {
  return (Object.keys(TOOL_CALL_MOVES) as ToolCallStatus[]).filter((from) => TOOL_CALL_MOVES[from].includes(to));
}

/** An approval is decided (or expires) once; every other status is final. */
export function moveApproval<To extends ApprovalStatus>(from: ApprovalStatus, to: To): To {
  if (from !== 'pending' || to === 'pending') throw new Error(`An approval cannot move from ${from} to ${to}`);
  return to;
}

/** The statuses an approval may move to `to` from (a decided or expired one is final). */
export const approvalStatusesInto = (to: ApprovalStatus): ApprovalStatus[] => (to === 'pending' ? [] : ['pending']);

/** Caller calls an integration still has to claim or finish. */
export const OPEN_CALLER_STATUSES: readonly ToolCallStatus[] = ['pending', 'claimed'];
