/**
 * Tool call and approval lifecycles (spec 1 leaves the values open; these are ours).
 *
 * A call starts `pending_approval` (approval `always`) or `pending`; a caller tool is `claimed`
 * under a fence and ends `succeeded` or `failed` (a malformed success becomes a failure), or
 * `expired` when its lease runs out; a platform tool runs as `running`; `denied` follows a denied
 * or expired approval; `cancelled` when the run settles first.
 */
export const TOOL_CALL_STATUSES = ['pending_approval', 'pending', 'claimed', 'running', 'succeeded', 'failed', 'expired', 'denied', 'cancelled'] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

export const FINAL_TOOL_CALL_STATUSES: readonly ToolCallStatus[] = ['succeeded', 'failed', 'expired', 'denied', 'cancelled'];
export const isToolCallFinal = (status: ToolCallStatus) => FINAL_TOOL_CALL_STATUSES.includes(status);

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Spec 3 "Limits". */
export const APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;
export const APPROVAL_NOTE_MAX = 2000;
export const TOOL_ATTEMPTS_PER_RUN = 3;
/** How long a claim lasts before it must be renewed (decision; see docs/decisions/tool-call-fence-and-lease.md). */
export const TOOL_LEASE_MS = 5 * 60 * 1000;

/** Tool failure codes of spec 3 "Run and tool failure codes". */
export const TOOL_FAILURE_CODES = [
  'tool_expired',
  'tool_failed',
  'platform_tool_failed',
  'invalid_tool_arguments',
  'invalid_tool_result',
  'tool_retry_exhausted',
  'approval_denied',
  'approval_expired',
] as const;
export type ToolFailureCode = (typeof TOOL_FAILURE_CODES)[number];
