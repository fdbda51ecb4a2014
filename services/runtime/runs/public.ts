import { amountOf } from '../../../domain/usage/money.ts';
import type * as v from 'valibot';
import type { PublicMessageShape, PublicRunShape } from '../../../domain/public-shapes/runs.ts';
import type { messages, runs } from '../../../db/schema/index.ts';
import { toPublicMessageContent } from '../../../domain/sessions/messages.ts';
import { defaultFailureOf, hasFailure } from '../../../domain/sessions/run-failure.ts';

export type RunRow = typeof runs.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

/** The run object of spec 1, plus `failure` for failed, cancelled and timed-out runs (else null). */
export type PublicRun = v.InferOutput<typeof PublicRunShape>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const toRunResponse = (row: RunRow): PublicRun => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  threadId: row.threadId,
  sessionId: row.sessionId,
  agentVersionId: row.agentVersionId,
  createdByPrincipalId: row.createdByPrincipalId,
  state: row.state,
  inputPublic: { message: row.inputPublic.message },
  idempotencyKey: row.idempotencyKey,
  cancellationRequestedAt: iso(row.cancellationRequestedAt),
  admittedAt: iso(row.admittedAt),
  settledAt: iso(row.settledAt),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  failure: hasFailure(row.state) ? (row.failure ?? defaultFailureOf(row.state)) : null,
  ...runUsage(row),
  context: contextMeterOf(row),
});

/** The context meter of a run or session row (docs/decisions/context-compaction.md). */
export const contextMeterOf = (row: { contextLastInputTokens: number | null; contextWindow: number | null; contextCompactions: number }) => ({
  lastInputTokens: row.contextLastInputTokens,
  window: row.contextWindow,
  compactions: row.contextCompactions,
});

/** A run's usage and cost as the API and its settled event show them. */
export const runUsage = (row: Pick<RunRow, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'costNanos'>) => ({
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  cacheReadTokens: row.cacheReadTokens,
  cacheWriteTokens: row.cacheWriteTokens,
  cost: amountOf(row.costNanos),
});

/**
 * A transcript message as the API shows it (session `transcript`, run messages): user text and
 * the assistant's final reply; tool calls and results only as summaries. `attachments` holds
 * attachment metadata once files land (always empty until then).
 */
export type PublicMessage = v.InferOutput<typeof PublicMessageShape>;

export const toMessageResponse = (row: MessageRow): PublicMessage => {
  const content = toPublicMessageContent(row.role, row.content);
  return {
    id: row.id,
    threadId: row.threadId,
    runId: row.runId,
    sequence: row.sequence,
    role: row.role,
    text: content.text,
    toolCalls: content.toolCalls,
    toolResult: content.toolResult,
    attachments: content.attachments,
    createdAt: row.createdAt.toISOString(),
  };
};
