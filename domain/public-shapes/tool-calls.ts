import * as v from 'valibot';
import type { ToolExecutionRecord } from '../tool-calls/execution.ts';
import { TOOL_CALL_FAILURE_CODES } from '../tool-calls/failures.ts';
import { APPROVAL_STATUSES, TOOL_CALL_STATUSES } from '../tool-calls/states.ts';
import { Id, page, Timestamp } from './common.ts';

export const ToolCallFailureShape = v.strictObject({
  code: v.picklist(TOOL_CALL_FAILURE_CODES),
  message: v.string(),
  path: v.optional(v.string()),
  reason: v.optional(v.string()),
});

/**
 * How the worker ran a call (an MCP call or a Harness Operation); its fields are described in
 * docs/decisions/mcp-calls-in-runs.md and docs/decisions/harness-operation-shape.md.
 */
const ExecutionShape = v.custom<ToolExecutionRecord>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be an execution record',
);

/** A tool call as the API shows it (list, session debug records, pending work). */
export const PublicToolCallShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  runId: Id,
  sessionId: Id,
  turnId: v.string(),
  providerCallId: v.string(),
  toolName: v.string(),
  owner: v.picklist(['caller', 'platform']),
  approvalRequired: v.boolean(),
  status: v.picklist(TOOL_CALL_STATUSES),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  safeArguments: v.unknown(),
  safeResult: v.unknown(),
  failure: v.nullable(ToolCallFailureShape),
  execution: v.nullable(ExecutionShape),
  /** The positive-integer string of the latest claim; null before the first. */
  fence: v.nullable(v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/))),
  leaseExpiresAt: v.nullable(Timestamp),
  claimedByPrincipalId: v.nullable(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: v.nullable(Timestamp),
});

/** The claim answer: the call with its new `fence` and the `arguments` to run the tool with. */
export const ToolCallClaimShape = v.strictObject({
  ...PublicToolCallShape.entries,
  fence: v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/)),
  arguments: v.unknown(),
});

export const ToolResultSubmissionShape = v.strictObject({
  outcome: v.literal('submitted'),
  normalizedFailure: v.optional(v.strictObject({ code: v.literal('invalid_tool_result'), path: v.string() })),
});

/** An approval gate, with the gated call's tool name and session for context. */
export const PublicApprovalShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  runId: Id,
  sessionId: Id,
  toolCallId: Id,
  toolName: v.string(),
  status: v.picklist(APPROVAL_STATUSES),
  expiresAt: Timestamp,
  note: v.nullable(v.string()),
  decidedByPrincipalId: v.nullable(Id),
  decidedAt: v.nullable(Timestamp),
  createdAt: Timestamp,
});

/** Unresolved work: caller calls waiting for a claim or a result, approvals waiting for a decision. */
export const PendingWorkShape = v.strictObject({ toolCalls: v.array(PublicToolCallShape), approvals: v.array(PublicApprovalShape) });
export const ToolCallPageShape = page(PublicToolCallShape);
export const ApprovalPageShape = page(PublicApprovalShape);
