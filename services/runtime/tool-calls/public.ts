import type * as v from 'valibot';
import type { PublicApprovalShape, PublicToolCallShape, ToolCallClaimShape } from '../../../domain/public-shapes/tool-calls.ts';
import type { approvals, toolCalls } from '../../../db/schema/index.ts';
import type { ToolCallFailure } from '../../../domain/tool-calls/failures.ts';

export type ToolCallRow = typeof toolCalls.$inferSelect;
export type ApprovalRow = typeof approvals.$inferSelect;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * A tool call as the API shows it (`GET /tool-calls`, session `debug.toolCalls`, pending work).
 * `safeArguments` are arguments that passed the tool's `inputSchema` (null when refused);
 * `safeResult` is the validated, immutable result envelope; `fence` is the positive-integer
 * string of the latest claim (null before the first). `providerCallId` is the model's own id.
 */
export type PublicToolCall = v.InferOutput<typeof PublicToolCallShape>;

export const toToolCallResponse = (row: ToolCallRow): PublicToolCall => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  runId: row.runId,
  sessionId: row.sessionId,
  turnId: row.turnId,
  providerCallId: row.providerCallId,
  toolName: row.toolName,
  owner: row.owner,
  approvalRequired: row.approvalRequired,
  status: row.status,
  attempt: row.attempt,
  safeArguments: row.safeArguments ?? null,
  safeResult: row.safeResult ?? null,
  failure: row.failure ? toFailure(row.failure) : null,
  execution: row.execution ?? null,
  fence: row.fence > 0 ? String(row.fence) : null,
  leaseExpiresAt: iso(row.leaseExpiresAt),
  claimedByPrincipalId: row.claimedByPrincipalId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  completedAt: iso(row.completedAt),
});

/** The claim answer: the call plus the `arguments` the integration runs the tool with. */
export type PublicToolCallClaim = v.InferOutput<typeof ToolCallClaimShape>;

export const toToolCallClaimResponse = (row: ToolCallRow): PublicToolCallClaim => ({
  ...toToolCallResponse(row),
  fence: String(row.fence),
  arguments: row.safeArguments ?? null,
});

function toFailure(stored: NonNullable<ToolCallRow['failure']>): ToolCallFailure {
  const failure = { code: stored.code, message: stored.message } as ToolCallFailure;
  if (stored.path !== undefined) failure.path = stored.path;
  if (stored.reason !== undefined) failure.reason = stored.reason;
  return failure;
}

/**
 * An approval gate as the API shows it (`GET /approvals`, session `debug.approvals`, pending
 * work), with the gated call's tool name and session for context. `expiresAt` never changes.
 */
export type PublicApproval = v.InferOutput<typeof PublicApprovalShape>;

export const toApprovalResponse = (row: ApprovalRow, call: Pick<ToolCallRow, 'sessionId' | 'toolName'>): PublicApproval => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  runId: row.runId,
  sessionId: call.sessionId,
  toolCallId: row.toolCallId,
  toolName: call.toolName,
  status: row.status,
  expiresAt: row.expiresAt.toISOString(),
  note: row.note,
  decidedByPrincipalId: row.decidedByPrincipalId,
  decidedAt: iso(row.decidedAt),
  createdAt: row.createdAt.toISOString(),
});

/**
 * Unresolved work (`GET /pending-work`, session `pendingWork`): caller calls waiting for a claim
 * or a result, and approvals waiting for a decision, oldest first.
 */
export type PublicPendingWork = { toolCalls: PublicToolCall[]; approvals: PublicApproval[] };
