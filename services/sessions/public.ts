import type * as v from 'valibot';
import type { PublicSessionListItemShape, PublicSessionShape } from '../../domain/public-shapes/sessions.ts';
import type { PublicDelegation } from '../delegations/public.ts';
import type { modelInvocations, sessions } from '../../db/schema/index.ts';
import type { SkillVersionStatus } from '../../domain/skills/lifecycle.ts';
import type { ToolSummary } from '../../domain/agent-config/index.ts';
import type { TimelineEntry } from '../../domain/sessions/timeline.ts';
import type { PublicProductEvent } from '../events/public-event.ts';
import type { PublicMessage, PublicRun } from '../runs/public.ts';
import type { PublicSandbox, PublicSandboxCommand, PublicWorkspaceBackup } from '../sandboxes/public.ts';

export type SessionRow = typeof sessions.$inferSelect;
export type ModelInvocationRow = typeof modelInvocations.$inferSelect;

/** The session object of spec 1, plus `agentId` and `title` (the create body accepts a title). */
export type PublicSession = v.InferOutput<typeof PublicSessionShape>;

/** List items (and the detail) add the delegation fields and the cumulative token counters. */
export type PublicSessionListItem = v.InferOutput<typeof PublicSessionListItemShape>;

/** A Skill version the session bound at creation: metadata only, never instructions or bytes. */
export type PublicSessionSkill = {
  skillId: string;
  skillVersionId: string;
  version: number;
  name: string;
  description: string;
  contentHash: string;
  status: SkillVersionStatus;
};

/** Unresolved work waiting on a caller (tool calls) or a human (approvals). */
export type PublicPendingWork = { toolCalls: never[]; approvals: never[] };

/** One provider attempt (debug `modelInvocations`). */
export type PublicModelInvocation = {
  id: string;
  runId: string;
  turnId: string;
  attempt: number;
  status: ModelInvocationRow['status'];
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  finishReason: string | null;
  providerFinishReason: string | null;
  errorCode: string | null;
  errorExplanation: string | null;
  thinking: string | null;
  startedAt: string;
  completedAt: string | null;
};

export type PublicSessionDebug = {
  productEvents: PublicProductEvent[];
  modelInvocations: PublicModelInvocation[];
  toolCalls: never[];
  approvals: never[];
  sandboxes: PublicSandbox[];
  workspaceBackups: PublicWorkspaceBackup[];
  sandboxCommands: PublicSandboxCommand[];
};

export type PublicSessionDetail = PublicSessionListItem & {
  runs: PublicRun[];
  transcript: PublicMessage[];
  timeline: TimelineEntry[];
  pendingWork: PublicPendingWork;
  debug: PublicSessionDebug;
  skills: PublicSessionSkill[];
  tools: ToolSummary[];
  delegations: PublicDelegation[];
};

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
});

export const toSessionListItem = (row: SessionRow): PublicSessionListItem => ({
  ...toSessionResponse(row),
  parentSessionId: row.parentSessionId,
  delegateKey: row.delegateKey,
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  cacheReadTokens: row.cacheReadTokens,
  cacheWriteTokens: row.cacheWriteTokens,
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
  finishReason: row.finishReason,
  providerFinishReason: row.providerFinishReason,
  errorCode: row.errorCode,
  errorExplanation: row.errorExplanation,
  thinking: row.thinking,
  startedAt: row.startedAt.toISOString(),
  completedAt: row.completedAt ? row.completedAt.toISOString() : null,
});

/** The empty pending-work shape: tool calls and approvals arrive with the tool slice. */
export const emptyPendingWork = (): PublicPendingWork => ({ toolCalls: [], approvals: [] });
