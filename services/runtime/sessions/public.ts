import { publicSessionBudget } from '../../../domain/usage/budget.ts';
import { amountOf } from '../../../domain/usage/money.ts';
import type * as v from 'valibot';
import type {
  PublicCompactionShape,
  PublicModelInvocationShape,
  PublicSessionListItemShape,
  PublicSessionShape,
  PublicSessionSkillShape,
} from '../../../domain/public-shapes/sessions.ts';
import type { contextCompactions, modelInvocations } from '../../../db/schema/index.ts';
import type { SessionRow } from '../runs/index.ts';

export type { SessionRow };
export type ModelInvocationRow = typeof modelInvocations.$inferSelect;

/** The session object of spec 1, plus `agentId` and `title` (the create body accepts a title). */
export type PublicSession = v.InferOutput<typeof PublicSessionShape>;

/** List items (and the detail) add the delegation fields and the cumulative token counters. */
export type PublicSessionListItem = v.InferOutput<typeof PublicSessionListItemShape>;

/** A Skill version the session bound at creation: metadata only, never instructions or bytes. */
export type PublicSessionSkill = v.InferOutput<typeof PublicSessionSkillShape>;

/** One provider attempt (debug `modelInvocations`). */
export type PublicModelInvocation = v.InferOutput<typeof PublicModelInvocationShape>;

export const toSessionResponse = (row: SessionRow): PublicSession => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  threadId: row.threadId,
  agentId: row.agentId,
  agentVersionId: row.agentVersionId,
  title: row.title,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  lastActivityAt: row.lastActivityAt.toISOString(),
  latestRunId: row.latestRunId,
  archivedAt: row.archivedAt ? row.archivedAt.toISOString() : null,
  budget: publicSessionBudget({ maxCostNanos: row.budgetMaxCostNanos, maxTokens: row.budgetMaxTokens }),
});

export const toSessionListItem = (row: SessionRow): PublicSessionListItem => ({
  ...toSessionResponse(row),
  parentSessionId: row.parentSessionId,
  delegateKey: row.delegateKey,
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  cacheReadTokens: row.cacheReadTokens,
  cacheWriteTokens: row.cacheWriteTokens,
  cost: amountOf(row.costNanos),
  forkedFrom: row.forkedFromSessionId && row.forkedFromRunId ? { sessionId: row.forkedFromSessionId, runId: row.forkedFromRunId } : null,
});

export const toModelInvocationResponse = (row: ModelInvocationRow): PublicModelInvocation => ({
  id: row.id,
  runId: row.runId,
  turnId: row.turnId,
  attempt: row.attempt,
  status: row.status,
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  cacheReadTokens: row.cacheReadTokens,
  cacheWriteTokens: row.cacheWriteTokens,
  cost: amountOf(row.costNanos),
  finishReason: row.finishReason,
  providerFinishReason: row.providerFinishReason,
  errorCode: row.errorCode,
  errorExplanation: row.errorExplanation,
  thinking: row.thinking,
  contextWindow: row.contextWindow,
  startedAt: row.startedAt.toISOString(),
  completedAt: row.completedAt ? row.completedAt.toISOString() : null,
});

/** An accepted compaction as the session detail's debug shows it. */
export const toCompactionResponse = (row: typeof contextCompactions.$inferSelect): v.InferOutput<typeof PublicCompactionShape> => ({
  compaction: row.number ?? 1,
  runId: row.runId,
  turnId: row.turnId,
  reason: row.reason,
  tokensBefore: row.tokensBefore,
  tokensAfter: row.tokensAfter,
  messagesCovered: row.messagesCovered,
  throughSequence: row.throughSequence,
  summary: row.summary ?? '',
  createdAt: row.createdAt.toISOString(),
});
