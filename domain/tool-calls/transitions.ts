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

export function canTransitionToolCall(from: ToolCallStatus, to: ToolCallStatus): boolean {
  return TOOL_CALL_MOVES[from].includes(to);
}

/** An approval is decided (or expires) once; every other status is final. */
export function canTransitionApproval(from: ApprovalStatus, to: ApprovalStatus): boolean {
  return from === 'pending' && to !== 'pending';
}

/** Caller calls an integration still has to claim or finish. */
export const OPEN_CALLER_STATUSES: readonly ToolCallStatus[] = ['pending', 'claimed'];
